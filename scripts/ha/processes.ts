import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';

/**
 * Processes of the cluster: started detached (their own session, so no signal
 * meant for the caller's terminal or process group reaches them), remembered by
 * pid and start time (so a recycled pid is never signalled), inspected through
 * /proc. Linux only, like Patroni's packages.
 */

export interface ProcInfo {
  pid: number;
  /** R, S, D, T (stopped), t, Z (zombie), X ... */
  state: string;
  ppid: number;
  /** Clock ticks since boot: with the pid, identifies one process. */
  startTime: number;
  cmdline: string[];
}

/** What a run file records about a process this tool started. */
export interface Started {
  name: string;
  pid: number;
  startTime: number;
  command: string[];
}

export interface RunAs {
  uid: number;
  gid: number;
  user: string;
  home: string;
}

export function procInfo(pid: number): ProcInfo | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may contain spaces: the fields start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  let cmdline: string[] = [];
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((part) => part !== '');
  } catch {
    // Gone in between, or a zombie: no command line.
  }
  return { pid, state: fields[0], ppid: Number(fields[1]), startTime: Number(fields[19]), cmdline };
}

/** Alive means: exists, is not a zombie, and (when given) started at `startTime`. */
export function isAlive(pid: number, startTime?: number): boolean {
  const info = procInfo(pid);
  if (!info || info.state === 'Z' || info.state === 'X') return false;
  return startTime === undefined || info.startTime === startTime;
}

export function isStopped(pid: number): boolean {
  const state = procInfo(pid)?.state;
  return state === 'T' || state === 't';
}

export function allProcs(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const info = procInfo(Number(entry));
    if (info) out.push(info);
  }
  return out;
}

/** Every live descendant of `roots` (not the roots themselves). */
export function descendants(roots: number[], procs: ProcInfo[] = allProcs()): number[] {
  const children = new Map<number, number[]>();
  for (const p of procs) {
    if (p.state === 'Z' || p.state === 'X') continue;
    const list = children.get(p.ppid) ?? [];
    list.push(p.pid);
    children.set(p.ppid, list);
  }
  const out: number[] = [];
  const queue = [...roots];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    for (const child of children.get(pid) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

export function signal(pid: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false;
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until none of `pids` is alive (zombies count as gone); returns those still alive at the deadline. */
export async function waitGone(pids: number[], timeoutMs: number): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = pids.filter((pid) => isAlive(pid));
    if (left.length === 0 || Date.now() >= deadline) return left;
    await sleep(100);
  }
}

/**
 * The OS user everything runs as. PostgreSQL refuses root, so as root that is
 * `postgres` (created as a system user when missing); otherwise the caller.
 */
export function runAsUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const user = 'postgres';
  const lookup = (): RunAs | undefined => {
    try {
      const uid = Number(execFileSync('id', ['-u', user], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim());
      const gid = Number(execFileSync('id', ['-g', user], { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim());
      const home = execFileSync('getent', ['passwd', user]).toString().trim().split(':')[5] || '/';
      return { uid, gid, user, home };
    } catch {
      return undefined;
    }
  };
  const found = lookup();
  if (found) return found;
  execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', user], { stdio: ['ignore', 2, 2] });
  const created = lookup();
  if (!created) throw new Error(`could not create the system user ${user}`);
  return created;
}

/** A clean environment for the cluster's processes: no PG*, ETCD*, PATRONI* or Python settings of the caller leak in. */
export function childEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: '/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    PYTHONUNBUFFERED: '1',
    ...extra,
  };
}

/**
 * Starts `command` detached (own session, stdin closed, output appended to
 * `logFile`), as `runAs` when given, and records it in `runFile`.
 */
export function spawnDetached(options: {
  name: string;
  command: string;
  args: string[];
  logFile: string;
  runFile: string;
  cwd: string;
  env: Record<string, string>;
  runAs?: RunAs;
}): Started {
  const log = openSync(options.logFile, 'a', 0o600);
  try {
    const child = spawn(options.command, options.args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['ignore', log, log],
      ...(options.runAs ? { uid: options.runAs.uid, gid: options.runAs.gid } : {}),
    });
    // The error event (e.g. ENOENT) would otherwise crash the caller; a missing binary shows as a dead pid.
    child.on('error', () => {});
    child.unref();
    if (child.pid === undefined) throw new Error(`could not start ${options.command}`);
    const started: Started = {
      name: options.name,
      pid: child.pid,
      startTime: procInfo(child.pid)?.startTime ?? 0,
      command: [options.command, ...options.args],
    };
    writeFileSync(options.runFile, JSON.stringify(started) + '\n', { mode: 0o644 });
    return started;
  } finally {
    closeSync(log);
  }
}

export function readRunFile(runFile: string): Started | undefined {
  if (!existsSync(runFile)) return undefined;
  try {
    return JSON.parse(readFileSync(runFile, 'utf8')) as Started;
  } catch {
    return undefined;
  }
}

/** Is this recorded process still the one we started? */
export function startedAlive(started: Started | undefined): started is Started {
  return started !== undefined && isAlive(started.pid, started.startTime || undefined);
}

/** The postmaster of `dataDir` (from its postmaster.pid), when it is alive and really runs that directory. */
export function postmasterPid(dataDir: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  const info = procInfo(pid);
  if (!info || info.state === 'Z' || info.state === 'X') return undefined;
  const args = info.cmdline;
  const i = args.indexOf('-D');
  const runs = (i >= 0 && args[i + 1] === dataDir) || args.includes(`--data-directory=${dataDir}`) || args.some((a) => a === `-D${dataDir}`);
  return runs ? pid : undefined;
}

/** Is something accepting TCP connections on 127.0.0.1:port? */
export function portOpen(port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (open: boolean): void => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(true)); // a frozen listener still holds the port
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The last `lines` lines of a file, for error messages. */
export function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}
