import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedUrl, startEmbeddedPostgres, type EmbeddedPostgres } from '../platform/db/embedded-postgres.js';
import { createLogger } from '../platform/observability/logger.js';
import { TEST_ADMIN_TOKEN } from './support/app.js';
import { call, CrashLoad, FLOWED, holdCreation, returnRequest } from './support/crash-load.js';
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

const KILLS = 3;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function serviceEnv(extra: Record<string, string>): Record<string, string | undefined> {
  return {
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    LOG_FORMAT: 'json',
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    DEMO_ACCOUNT: 'false',
    DATABASE_URL: undefined,
    // Small pools: a pool that lost connections for good would run dry within the first kills.
    DB_POOL_SIZE: '4',
    EVENTS_RATE_LIMIT_PER_SECOND: '100000',
    API_RATE_LIMIT_PER_MINUTE: '1000000',
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1,1,1',
    ...extra,
  };
}

/** Polls each process's /readyz: which kills each saw answered 503, and whether all are ready now. */
function watchReadiness(urls: string[]) {
  let kill = -1;
  let running = true;
  const saw = urls.map(() => new Set<number>());
  const last = urls.map(() => 0);
  const loops = urls.map(async (url, i) => {
    while (running) {
      const status = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(15_000) }).then(
        (r) => r.status,
        () => 0,
      );
      last[i] = status;
      if (status === 503 && kill >= 0) saw[i]!.add(kill);
      await sleep(100);
    }
  });
  return {
    killed: (k: number) => (kill = k),
    notReadyAfter: (k: number) => eventually(async () => saw.every((s) => s.has(k)), `every process's /readyz to answer 503 after kill ${k + 1}`, { timeoutMs: 30_000 }),
    ready: (what: string) => eventually(async () => last.every((s) => s === 200), `every process to be ready again ${what} (last: ${last.join(', ')})`, { timeoutMs: 90_000 }),
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

/** Every operation of every part, once, right after the recovery: each must answer as on any day. */
async function everyOperationAnswers(load: CrashLoad): Promise<void> {
  const { storeId } = load.store;
  expect(await load.createReturn('after-the-crashes', 'CRASH-0')).toEqual(expect.any(String));
  const reads = [
    await call(load.baseUrl, 'GET', `/v2.2/stores/${storeId}/returns?page-size=5`, load.store.apiSecret),
    await call(load.baseUrl, 'GET', `/v2.2/stores/${storeId}/inventory-items`, load.store.apiSecret),
    await call(load.baseUrl, 'GET', `/v2.2/stores/${storeId}/webhooks`, load.store.apiSecret),
    await load.graphql('flows', 'query($s: ID!) { flows(storeId: $s) { totalCount } }', { s: storeId }),
  ];
  expect(reads.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  expect(await load.adjustInventory()).toBe(200);
  await load.sendEvent('after-the-crashes', FLOWED);
  expect(load.events).toContain('after-the-crashes');
}

/** SIGTERM, then the exit: code 0, and no pool left waiting on a connection lost in the crash. */
async function stopsCleanly(spawned: Spawned): Promise<void> {
  spawned.child.kill('SIGTERM');
  const { code } = await spawned.exited;
  expect(code, spawned.output().slice(-3000)).toBe(0);
  expect(spawned.output()).not.toContain('did not close in time');
}

/** Runs the load, kills the database KILLS times through `kill`, checks the answers on the way, and the outcome. */
async function crashUnderLoad(load: CrashLoad, receiver: Receiver, readyUrls: string[], kill: (k: number) => Promise<void>, output: () => string): Promise<void> {
  const readiness = watchReadiness(readyUrls);
  const context = () => `${JSON.stringify(load.summary())}\n${output().slice(-3000)}`;
  try {
    load.start();
    await load.moves('once the load is under way');
    // The first kill cuts off a return creation inside its transaction, holding its Idempotency-Key.
    const held = await holdCreation(load, 'held-key');
    for (let k = 0; k < KILLS; k++) {
      if (k > 0) await sleep(300 + Math.random() * 2_000);
      readiness.killed(k);
      await kill(k);
      await readiness.notReadyAfter(k).catch((err: Error) => {
        throw new Error(`${err.message}\n${context()}`);
      });
      await readiness.ready(`after kill ${k + 1}`).catch((err: Error) => {
        throw new Error(`${err.message}\n${context()}`);
      });
      if (k === 0) {
        // Cut off by the crash: answered, as "retry", not left hanging nor a masked 500.
        expect((await held.answer).status, JSON.stringify(await held.answer)).toBe(503);
        await held.blocker.end().catch(() => undefined);
      }
      await load.moves(`after kill ${k + 1}`).catch((err: Error) => {
        throw new Error(`${err.message}\n${output().slice(-3000)}`);
      });
    }
  } finally {
    await load.stop();
    await readiness.stop();
  }
  await everyOperationAnswers(load);

  // The key the crash cut off is retried: one return, replayed from then on.
  const heldId = await load.createReturn('held-key', 'HELD');
  expect(heldId, context()).toEqual(expect.any(String));
  const replay = await call(load.baseUrl, 'POST', `/v2.2/stores/${load.store.storeId}/returns`, load.store.apiSecret, returnRequest('HELD'), 'held-key');
  expect(replay.status).toBe(200);
  expect(replay.body.return.id).toBe(heldId);

  const answers = [...load.answers.keys()];
  expect(load.failures, context()).toEqual([]);
  // Every request got an answer, and what failed for the crash said "retry" (503), never a masked 500.
  expect(answers.filter((a) => / (-1|500)$/.test(a)), context()).toEqual([]);
  expect(answers.some((a) => a.endsWith(' 503')), context()).toBe(true);
  await load.verify(receiver);
}

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
