import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../platform/config.js';
import { freePort } from '../platform/db/embedded-postgres.js';
import { createLogger } from '../platform/observability/logger.js';
import { publish } from '../platform/jobs/outbox.js';
import { startRuntime } from '../server/runtime.js';
import { createBenchAccount, withBenchBed } from './support/compare.js';
import { startProcess, stopProcess } from './support/processes.js';
import { ReturnUpdated, type ReturnEventData } from '../subgraphs/returns/public.js';

/*
 * Webhook delivery: changes of 1,000 subjects committed through the outbox at a steady rate, to one
 * and to ten subscriptions whose receivers answer 204 after about 5 ms. Printed: deliveries/s and
 * commit -> delivered p50/p99, for the service (ordered per subject, signed, logged, retried) and,
 * in the same run on the same database, for a bare pg-boss worker that POSTs the same bodies with
 * no ordering, signing or log.
 *
 *   npm run bench:webhooks     knobs: BENCH_SECONDS (default 8), BENCH_RATE (deliveries/s, default 1500)
 */
const SUBJECTS = 1000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const RATE = Number(process.env.BENCH_RATE ?? 1500);
const TICK_MS = 20;

interface Receivers {
  urls: string[];
  /** Registers a change before its commit (a delivery may arrive before the commit call returns). */
  expect(key: string, copies: number): void;
  committed(key: string, at: number): void;
  pending(): number;
  /** Commit -> delivered of every copy, and when the last one arrived. */
  latencies(): { values: number[]; lastArrival: number };
  close(): Promise<void>;
}

/** Receivers answering 204 after ~5 ms, recording when each expected body arrived. */
async function startReceivers(count: number, keyOf: (body: string) => string): Promise<Receivers> {
  const changes = new Map<string, { at?: number; arrivals: number[]; left: number }>();
  let waiting = 0;
  let lastArrival = 0;
  const servers: Server[] = [];
  const urls: string[] = [];
  for (let i = 0; i < count; i++) {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const now = performance.now();
        const entry = changes.get(keyOf(Buffer.concat(chunks).toString()));
        if (entry && entry.left > 0) {
          entry.arrivals.push(now);
          lastArrival = now;
          if (--entry.left === 0) waiting--;
        }
        setTimeout(() => res.writeHead(204).end(), 5);
      });
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
    urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
  }
  return {
    urls,
    expect: (key, copies) => {
      changes.set(key, { arrivals: [], left: copies });
      waiting++;
    },
    committed: (key, at) => {
      changes.get(key)!.at = at;
    },
    pending: () => waiting,
    latencies: () => ({ values: [...changes.values()].flatMap((c) => c.arrivals.map((a) => Math.max(0, a - c.at!))), lastArrival }),
    close: async () => {
      for (const s of servers) {
        s.closeAllConnections();
        await new Promise((r) => s.close(r));
      }
    },
  };
}

interface Figures {
  deliveries: number;
  perSecond: number;
  p50: number;
  p99: number;
}

function figures(arrivals: number[], elapsedMs: number): Figures {
  const sorted = [...arrivals].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? NaN;
  return { deliveries: arrivals.length, perSecond: arrivals.length / (elapsedMs / 1000), p50: at(0.5), p99: at(0.99) };
}

/** Commits `eventsPerSecond` changes for SECONDS (round-robin over the subjects), then waits for every copy to arrive. */
async function drive(eventsPerSecond: number, copies: number, receivers: Receivers, commit: (batch: { subject: string; n: number }[]) => Promise<void>): Promise<Figures> {
  const counters = new Array<number>(SUBJECTS).fill(0);
  let next = 0;
  const perTick = (eventsPerSecond * TICK_MS) / 1000;
  let owed = 0;
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  while (performance.now() - started < SECONDS * 1000) {
    owed += perTick;
    const batch: { subject: string; n: number }[] = [];
    while (owed >= 1) {
      const i = next++ % SUBJECTS;
      batch.push({ subject: `ret_bench_${i}`, n: ++counters[i]! });
      owed -= 1;
    }
    if (batch.length) {
      for (const b of batch) receivers.expect(`${b.subject}:${b.n}`, copies);
      inFlight.push(
        commit(batch).then(() => {
          const at = performance.now();
          for (const b of batch) receivers.committed(`${b.subject}:${b.n}`, at);
        }),
      );
    }
    const due = started + (inFlight.length + 1) * TICK_MS;
    await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
  }
  await Promise.all(inFlight);
  const deadline = performance.now() + 120_000;
  while (receivers.pending() > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const { values, lastArrival } = receivers.latencies();
  return figures(values, lastArrival - started);
}

const keyOf = (body: string) => {
  const parsed = JSON.parse(body) as { return: { id: string; n: number } };
  return `${parsed.return.id}:${parsed.return.n}`;
};

async function main() {
  const logger = createLogger('warn');
  const results: [string, Figures, Figures][] = [];
  await withBenchBed('webhooks', async (bed) => {
    await bed.client.connect();
    for (const subscriptions of [1, 10]) {
      const eventsPerSecond = RATE / subscriptions;
      const database = `bench_${subscriptions}`;
      await bed.client.query(`create database ${database}`);
      const url = bed.db.url.replace(/\/[^/?]+(\?|$)/, `/${database}$1`);
      const adminToken = 'bench-admin-token-0123456789abcdef';
      // The service as `npm start` runs it, in its own process: REST and the webhook workers.
      const port = await freePort();
      const service = await startProcess('dist/server/main.js', ['all'], { DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', DEMO_ACCOUNT: 'false', ADMIN_TOKEN: adminToken, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' }, port);
      bed.children.push(service);
      const base = `http://127.0.0.1:${port}`;
      const { storeId, apiSecret } = await createBenchAccount(base, adminToken);
      const receivers = await startReceivers(subscriptions, keyOf);
      for (const target of receivers.urls) {
        const res = await fetch(`${base}/v2.2/stores/${storeId}/webhooks`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiSecret}`, 'content-type': 'application/json' },
          body: JSON.stringify({ webhook: { callback: { url: target, auth: { bearer: { token: 'bench-token' } } }, topic: 'return' } }),
        });
        if (res.status !== 201) throw new Error(`subscription: ${res.status} ${await res.text()}`);
      }
      // The producer: a process of the service without workers (the returns subgraph's runtime), committing through the outbox.
      const producer = await startRuntime(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'warn', DEMO_ACCOUNT: 'false', ADMIN_TOKEN: adminToken }), logger, { role: 'subgraph', subgraph: 'returns' });
      const serviceFigures = await drive(eventsPerSecond, subscriptions, receivers, (batch) =>
        producer.platformOrm.em.fork().transactional(async (em) => {
          await publish(
            em,
            ReturnUpdated,
            batch.map((b) => ({ storeId, subjectId: b.subject, data: { return: { id: b.subject, n: b.n, status: 'open' }, order: { id: 'ord_bench' } } as unknown as ReturnEventData })),
          );
        }),
      );
      await stopProcess(service);
      await receivers.close();

      // The baseline: a bare pg-boss worker in its own process, fed at the same rate (one job per subscription per change).
      const baseReceivers = await startReceivers(subscriptions, keyOf);
      const basePort = await freePort();
      const baseline = await startProcess('dist/bench/webhooks-baseline.js', [], { DATABASE_URL: url, PORT: String(basePort), QUEUE: 'bench-baseline' }, basePort);
      bed.children.push(baseline);
      const baselineFigures = await drive(eventsPerSecond, subscriptions, baseReceivers, async (batch) => {
        const jobs = batch.flatMap((b) =>
          baseReceivers.urls.map((target) => ({ data: { url: target, body: JSON.stringify({ type: 'updated', at: new Date().toISOString(), merchantName: 'Bench store', return: { id: b.subject, n: b.n, status: 'open' }, order: { id: 'ord_bench' } }) } })),
        );
        await producer.boss.insert('bench-baseline', jobs);
      });
      await stopProcess(baseline);
      await baseReceivers.close();
      await producer.close();
      results.push([`${subscriptions} subscription${subscriptions > 1 ? 's' : ''}, ${eventsPerSecond} changes/s over ${SUBJECTS} subjects`, serviceFigures, baselineFigures]);
    }
  });
  const rows = results;
  const row = (name: string, f: Figures) => `${name.padEnd(28)} ${f.deliveries} deliveries, ${f.perSecond.toFixed(0)}/s, commit -> delivered p50 ${f.p50.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms`;
  for (const [name, s, b] of rows) {
    console.log(name);
    console.log(`  ${row('service', s)}`);
    console.log(`  ${row('baseline (bare pg-boss POST)', b)}`);
    console.log(`  service/baseline deliveries/s ${(s.perSecond / b.perSecond).toFixed(2)}x`);
  }
}

await main();
