import { spawn, type ChildProcess } from 'node:child_process';
import { projectRoot } from '../../platform/project-root.js';

/** Starts a built entry point as its own process (its own event loop, as in production). */
export async function startProcess(script: string, args: string[], env: Record<string, string>, port: number, extraNodeArgs: string[] = []): Promise<ChildProcess> {
  // BENCH_NODE_ARGS passes flags to the measured processes (--cpu-prof, --trace-gc, ...); their stdout is then shown.
  const nodeArgs = [...extraNodeArgs, ...(process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [])];
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], { cwd: projectRoot(), env: { ...process.env, ...env }, stdio: ['ignore', process.env.BENCH_NODE_ARGS ? 'inherit' : 'ignore', 'inherit'] });
  const started = Date.now();
  while (Date.now() - started < 120_000) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200) return child;
    } catch {
      /* not up yet */
    }
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${script} did not become ready`);
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}
