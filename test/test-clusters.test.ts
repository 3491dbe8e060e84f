import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeAbandonedClusters } from './support/global-setup.js';

/** A test run killed before its teardown leaves its throwaway cluster behind; the next run removes it, and only it. */
describe('throwaway test clusters', () => {
  const dir = mkdtempSync(join(tmpdir(), 'test-clusters-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("removes the clusters of runs that are gone, keeps a live run's and any it cannot attribute", () => {
    const dead = spawnSync('true').pid;
    const cluster = (name: string, runner?: number) => {
      const path = join(dir, `returns-platform-test-${name}`);
      mkdirSync(join(path, 'pg'), { recursive: true });
      if (runner !== undefined) writeFileSync(join(path, 'runner.pid'), String(runner));
      return path;
    };
    const abandoned = cluster('abandoned', dead);
    const live = cluster('live', process.pid);
    const unknown = cluster('unknown');
    expect(removeAbandonedClusters(dir)).toEqual([abandoned]);
    expect(existsSync(abandoned)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(unknown)).toBe(true);
  });
});
