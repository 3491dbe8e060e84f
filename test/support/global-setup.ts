import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../platform/db/embedded-postgres.js';
import { projectRoot } from '../../platform/project-root.js';
import { createLogger } from '../../platform/observability/logger.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

const PREFIX = 'returns-platform-test-';
/** The pid of the test run a throwaway cluster belongs to. */
const RUNNER = 'runner.pid';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the throwaway clusters of earlier runs that were killed before their
 * teardown (Ctrl-C twice, a crashed runner): only those whose run is gone, so
 * another run on the same machine keeps its own.
 */
export function removeAbandonedClusters(dir = tmpdir()): string[] {
  const removed: string[] = [];
  for (const entry of readdirSync(dir).filter((name) => name.startsWith(PREFIX))) {
    const path = join(dir, entry);
    const runner = Number(existsSync(join(path, RUNNER)) ? readFileSync(join(path, RUNNER), 'utf8') : NaN);
    if (!Number.isInteger(runner) || alive(runner)) continue;
    const postmaster = Number(existsSync(join(path, 'pg', 'postmaster.pid')) ? readFileSync(join(path, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0] : NaN);
    if (Number.isInteger(postmaster) && postmaster > 0 && alive(postmaster)) process.kill(postmaster, 'SIGQUIT');
    rmSync(path, { recursive: true, force: true });
    removed.push(path);
  }
  return removed;
}

/**
 * The built service (`dist/`), once for the whole run and only when a source changed: the tests that
 * start it as a process (`spawnNode`, the admin CLI, `npm start`) run what `npm start` runs, and no
 * two test files build at the same time.
 */
function buildService(): void {
  const build = spawnSync(process.execPath, [join(projectRoot(), 'scripts', 'build-if-stale.mjs')], { cwd: projectRoot(), encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`the build failed:\n${build.stdout}${build.stderr}`);
}

/**
 * One PostgreSQL for the whole run: `TEST_DATABASE_URL` when given, else an
 * embedded throwaway server (fsync off). Each test file creates its own
 * database on it (see test/support/app.ts). Its directory goes whatever the
 * outcome: at teardown, when the start fails, or at the next run when this
 * one was killed.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  buildService();
  if (process.env.TEST_DATABASE_URL) {
    project.provide('databaseUrl', process.env.TEST_DATABASE_URL);
    return async () => {};
  }
  removeAbandonedClusters();
  const dataDir = mkdtempSync(join(tmpdir(), PREFIX));
  writeFileSync(join(dataDir, RUNNER), String(process.pid));
  const remove = () => rmSync(dataDir, { recursive: true, force: true });
  let server: Awaited<ReturnType<typeof startEmbeddedPostgres>>;
  try {
    server = await startEmbeddedPostgres({ dataDir, logger: createLogger('warn'), durable: false });
  } catch (err) {
    remove();
    throw err;
  }
  project.provide('databaseUrl', server.url);
  return async () => {
    try {
      await server.stop();
    } finally {
      remove();
    }
  };
}
