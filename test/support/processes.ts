import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../platform/project-root.js';
import { freePort } from '../../platform/db/embedded-postgres.js';
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

export function run(command: string, args: string[], env: Record<string, string | undefined> = {}, cwd = projectRoot()): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: { ...process.env, ...env }, timeout: 120_000 }, (err, stdout, stderr) =>
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
