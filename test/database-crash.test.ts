import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedUrl, startEmbeddedPostgres, type EmbeddedPostgres } from '../platform/db/embedded-postgres.js';
import { createLogger } from '../platform/observability/logger.js';
import { CrashLoad, crashUnderLoad, serviceEnv, stopsCleanly } from './support/crash-load.js';
import { eventually } from './support/eventually.js';
import { alive, freePort, pgCtl, postgresPid, spawnNode, type Spawned } from './support/processes.js';
import { startReceiver, type Receiver } from './support/receiver.js';

/**
 * An operator's worst minute: the database dies under load on every part at once (SIGKILL of every
 * PostgreSQL process, or an immediate stop of an external server), several times, at random
 * moments. Afterwards every operation of every part answers, nothing acknowledged is lost or
 * doubled, the request cut off holding its Idempotency-Key can be retried, readiness said 503
 * while the database could not serve, and the processes stop as after any other day.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('database crashes under load', () => {
  let receiver: Receiver;
  const dirs: string[] = [];
  const spawned: Spawned[] = [];

  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    for (const s of spawned) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    await Promise.all(spawned.map((s) => s.exited));
    for (const dir of dirs) {
      const pid = postgresPid(dir);
      if (pid && alive(pid)) process.kill(pid, 'SIGQUIT');
      rmSync(dir, { recursive: true, force: true });
    }
    await receiver?.close();
  });

  const start = (args: string[], env: Record<string, string | undefined>) => {
    const s = spawnNode(['dist/server/main.js', ...args], env);
    spawned.push(s);
    return s;
  };
  const ready = async (url: string, s: Spawned) =>
    eventually(async () => (await fetch(`${url}/readyz`)).status === 200, `${url} to be ready`, { timeoutMs: 120_000 }).catch((err: Error) => {
      throw new Error(`${err.message}: ${s.output().slice(-3000)}`);
    });

  it('the embedded PostgreSQL SIGKILLed three times under load on every part (one process, role all)', { timeout: 600_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'database-crash-'));
    dirs.push(dataDir);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const service = start(['all'], serviceEnv({ PORT: String(port), DATA_DIR: dataDir }));
    await ready(base, service);
    const load = await CrashLoad.prepare(base, embeddedUrl(dataDir)!, receiver);
    await crashUnderLoad(
      load,
      receiver,
      [base],
      async () => {
        // The whole process group, postmaster and backends, as an OOM killer would; the service starts it again.
        process.kill(-postgresPid(dataDir)!, 'SIGKILL');
      },
      service.output,
    );
    await stopsCleanly(service);
  });

  it('an external DATABASE_URL server stopped abruptly (pg_ctl stop -m immediate, SIGKILL) under load, with the processes split by role', { timeout: 600_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'database-crash-external-'));
    dirs.push(dataDir);
    // Durable as a real server is: a throwaway one acknowledges commits it may lose in a crash.
    const external: EmbeddedPostgres = await startEmbeddedPostgres({ dataDir, logger: createLogger('silent'), durable: true });
    const ports = { gateway: await freePort(), returns: await freePort(), inventory: await freePort(), events: await freePort() };
    const env = serviceEnv({
      DATABASE_URL: external.url,
      PORT: String(ports.gateway),
      RETURNS_SUBGRAPH_PORT: String(ports.returns),
      INVENTORY_SUBGRAPH_PORT: String(ports.inventory),
      EVENTS_SUBGRAPH_PORT: String(ports.events),
    });
    const urls = Object.fromEntries(Object.entries(ports).map(([name, p]) => [name, `http://127.0.0.1:${p}`])) as Record<keyof typeof ports, string>;
    const processes = {
      returns: start(['subgraph', 'returns'], env),
      inventory: start(['subgraph', 'inventory'], env),
      events: start(['subgraph', 'events'], env),
      worker: start(['worker'], env),
      gateway: start(['gateway'], env),
    };
    await Promise.all((['returns', 'inventory', 'events', 'gateway'] as const).map((name) => ready(urls[name], processes[name])));
    const output = () => Object.entries(processes).map(([name, s]) => `--- ${name}\n${s.output().slice(-1500)}`).join('\n');
    const load = await CrashLoad.prepare(urls.gateway, external.url, receiver);
    await crashUnderLoad(
      load,
      receiver,
      Object.values(urls),
      async (k) => {
        // What an operator or the host does to an external server: an immediate stop, or a kill of everything.
        if (k % 2 === 0) await pgCtl(dataDir, 'stop', '-m', 'immediate');
        else process.kill(-postgresPid(dataDir)!, 'SIGKILL');
        // Nobody among the services starts an external server: it comes back when its operator starts it.
        await sleep(500 + Math.random() * 1_500);
        expect(await external.ensureRunning()).toBe(true);
      },
      output,
    );
    for (const s of Object.values(processes)) await stopsCleanly(s);
    await external.stop();
  });
});
