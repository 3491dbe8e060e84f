import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpBalancerConfig } from './config.ts';
import { BINARIES, ensureInstalled } from './install.ts';
import { childEnv, portOpen, runAsUser, signal, sleep, spawnDetached, startedAlive, tail, waitGone } from './processes.ts';

export interface HttpBalancer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** HAProxy's pid. */
  pid: number;
  /** Stops HAProxy (verified gone) and removes its directory. Safe to call twice. */
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1 (bind to 0, read, close). */
export function freePort(): Promise<number> {
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

/**
 * HAProxy as an HTTP load balancer in front of local processes on `ports`:
 * round robin, each checked with `GET /readyz` every second (out after two
 * failures, back after one success); a request whose connection fails is sent
 * to another process. Runs as the same unprivileged user as the cluster, in a
 * directory of its own under the temp directory. Returns once it listens.
 */
export async function httpBalancer(ports: number[], options: { port?: number; log?: (line: string) => void } = {}): Promise<HttpBalancer> {
  if (ports.length === 0) throw new Error('httpBalancer needs at least one backend port');
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'));
  ensureInstalled(log, ['haproxy']);
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'returns-ha-balancer-'));
  const runAs = runAsUser();
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(config, httpBalancerConfig(port, ports), { mode: 0o600 });
  if (runAs) {
    chownSync(dir, runAs.uid, runAs.gid);
    chownSync(config, runAs.uid, runAs.gid);
  }
  chmodSync(dir, 0o700);
  const check = spawnSync(BINARIES.haproxy.path, ['-c', '-q', '-f', config], { encoding: 'utf8' });
  if (check.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`HAProxy rejects the balancer configuration:\n${check.stdout}${check.stderr}`);
  }
  const logFile = join(dir, 'haproxy.log');
  const started = spawnDetached({
    name: 'balancer',
    command: BINARIES.haproxy.path,
    args: ['-db', '-f', config],
    logFile,
    runFile: join(dir, 'run.json'),
    cwd: dir,
    env: childEnv(dir),
    runAs,
  });
  // If the caller dies without stop(), HAProxy goes with it.
  const onExit = (): void => {
    signal(started.pid, 'SIGKILL');
  };
  process.once('exit', onExit);

  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', onExit);
    signal(started.pid, 'SIGTERM');
    if ((await waitGone([started.pid], 5_000)).length > 0) {
      signal(started.pid, 'SIGKILL');
      const left = await waitGone([started.pid], 5_000);
      if (left.length > 0) throw new Error(`HAProxy (pid ${started.pid}) still alive`);
    }
    // HAProxy's threads stop one by one: its main thread can already be a zombie
    // (the process looks gone) while another thread still holds the listener.
    const closedBy = Date.now() + 5_000;
    while ((await portOpen(port, 300)) && Date.now() < closedBy) await sleep(50);
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 10_000;
  while (!(await portOpen(port, 300))) {
    if (!startedAlive(started) || Date.now() >= deadline) {
      const output = tail(logFile);
      await stop();
      throw new Error(`HAProxy did not listen on 127.0.0.1:${port}:\n${output}`);
    }
    await sleep(50);
  }
  log(`ha: HTTP balancer http://127.0.0.1:${port} -> ${ports.map((p) => `127.0.0.1:${p}`).join(', ')} (round robin, GET /readyz)`);
  return { url: `http://127.0.0.1:${port}`, port, pid: started.pid, stop };
}
