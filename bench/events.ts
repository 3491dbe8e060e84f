import 'reflect-metadata';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import express from 'express';
import pg from 'pg';
import { loadConfig } from '../platform/config.js';
import { startEmbeddedPostgres, withDatabase } from '../platform/db/embedded-postgres.js';
import { createLogger } from '../platform/logger.js';
import { startService } from '../server/main.js';
import { CUSTOM_EVENTS_QUEUE } from '../subgraphs/events/custom-event.ingestion.js';
import { startCustomEventWorkers } from '../subgraphs/events/custom-event.job.js';
import { send, type HttpTarget } from './support/load.js';
import { CustomEventService } from '../subgraphs/events/custom-event.service.js';

/**
 * `npm run bench:events`: drives POST /v2.2/stores/{storeId}/events over HTTP
 * with many concurrent clients across 50 stores, on a durable PostgreSQL
 * (fsync on), and compares it with a baseline measured in the same run: a
 * minimal Express handler inserting the raw body into one table. The load
 * runs in a worker thread so the clients do not share the server's event loop.
 *
 * Then segment evaluation on a store seeded with BENCH_SEGMENT_EVENTS events
 * (1,000,000; 0 skips it) over 20,000 customers, through GraphQL.
 *
 * Knobs: BENCH_SECONDS (10), BENCH_CLIENTS (64), BENCH_STORES (50), BENCH_SEGMENT_EVENTS.
 */

interface Target {
  url: string;
  /** Per store: its id and a secret (the baseline ignores them). */
  stores: { storeId: string; secret: string }[];
}

interface LoadResult {
  accepted: number;
  other: Record<string, number>;
  seconds: number;
  latenciesMs: number[];
}

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 64);
const STORES = Number(process.env.BENCH_STORES ?? 50);
const SEGMENT_EVENTS = Number(process.env.BENCH_SEGMENT_EVENTS ?? 1_000_000);
const SEGMENT_CUSTOMERS = 20_000;

function eventBody(i: number): string {
  return JSON.stringify({
    eventName: i % 3 ? 'Viewed Product' : 'Placed Order',
    customer: { email: `customer${i % 5000}@example.com`, firstName: 'Bench', customFields: { tier: i % 2 ? 'gold' : 'silver' } },
    data: { productId: `p${i % 100}`, price: (i % 50) + 0.99, quantity: (i % 3) + 1, viewedAt: new Date().toISOString() },
    value: (i % 50) + 0.99,
    valueCurrency: 'USD',
    uniqueId: `bench-${i}-${Math.random().toString(36).slice(2)}`,
  });
}

/** The load generator (worker thread): CLIENTS loops posting events for SECONDS. */
async function runLoad(target: Target): Promise<LoadResult> {
  const latencies: number[] = [];
  const other: Record<string, number> = {};
  let accepted = 0;
  let sequence = 0;
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  const http: HttpTarget = { port: Number(new URL(target.url).port), headers: {} };
  const client = async () => {
    while (performance.now() < deadline) {
      const i = sequence++;
      const store = target.stores[i % target.stores.length]!;
      const body = eventBody(i);
      const t0 = performance.now();
      const res = await send(http, 'POST', `/v2.2/stores/${store.storeId}/events`, body, {
        authorization: `Bearer ${store.secret}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      });
      latencies.push(performance.now() - t0);
      if (res.status === 202) accepted++;
      else other[res.status] = (other[res.status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  return { accepted, other, seconds: (performance.now() - started) / 1000, latenciesMs: latencies };
}

if (!isMainThread) {
  void runLoad(workerData as Target).then((result) => parentPort!.postMessage(result));
}

function load(target: Target): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: target });
    worker.once('message', (result: LoadResult) => resolve(result));
    worker.once('error', reject);
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function summarize(name: string, r: LoadResult) {
  const sorted = [...r.latenciesMs].sort((a, b) => a - b);
  const rate = r.accepted / r.seconds;
  console.log(
    `${name.padEnd(34)} accepted ${String(r.accepted).padStart(7)} in ${r.seconds.toFixed(1)} s = ${rate.toFixed(0).padStart(5)} events/s   p50 ${percentile(sorted, 50).toFixed(1)} ms   p99 ${percentile(sorted, 99).toFixed(1)} ms${Object.keys(r.other).length ? `   other statuses ${JSON.stringify(r.other)}` : ''}`,
  );
  return { rate, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

async function createDatabase(serverUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  return withDatabase(serverUrl, name);
}

/** The baseline: the least an HTTP endpoint can do to keep a request durably. */
async function baseline(serverUrl: string, poolSize: number): Promise<LoadResult> {
  const url = await createDatabase(serverUrl, 'bench_baseline');
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  await pool.query('create table raw_event (id bigserial primary key, store_id text not null, body jsonb not null, received_at timestamptz not null default now())');
  const app = express();
  app.post('/v2.2/stores/:storeId/events', express.text({ type: () => true, limit: '5mb' }), async (req, res) => {
    await pool.query('insert into raw_event (store_id, body) values ($1, $2)', [req.params.storeId, req.body]);
    res.status(202).end();
  });
  const server = createServer(app);
  const port = await listen(server);
  const stores = Array.from({ length: STORES }, (_, i) => ({ storeId: `sto_${i}`, secret: 'x' }));
  const result = await load({ url: `http://127.0.0.1:${port}`, stores });
  await new Promise((resolve) => server.close(resolve));
  await pool.end();
  return result;
}

async function main(): Promise<void> {
  const logger = createLogger('warn');
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-events-'));
  if (process.getuid?.() === 0) chmodSync(dataDir, 0o755);
  const postgres = await startEmbeddedPostgres({ dataDir, logger, durable: true });
  try {
    const config = loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: await createDatabase(postgres.url, 'bench_service'), LOG_LEVEL: 'silent', DEMO_ACCOUNT: 'false',
      // The load exceeds 100 requests/s per store; the counters still run, the limit just never bites.
      EVENTS_RATE_LIMIT_PER_SECOND: '1000000' });
    console.log(`custom events benchmark: ${CLIENTS} clients, ${STORES} stores, ${SECONDS} s per run, PostgreSQL with fsync on, pool ${config.dbPoolSize}\n`);

    const base = summarize('baseline (express + one insert)', await baseline(postgres.url, config.dbPoolSize));

    const service = await startService(config, logger, 'all');
    const stores: Target['stores'] = [];
    for (let i = 0; i < STORES; i++) {
      const account = await service.runtime.accounts.createAccount({ name: `Bench ${i}`, storeName: `Bench store ${i}` });
      stores.push({ storeId: account.storeId, secret: account.apiSecret });
    }
    const stored = async () => {
      const client = new pg.Client({ connectionString: config.databaseUrl });
      await client.connect();
      const { rows } = await client.query<{ events: number; backlog: number }>(
        `select (select count(*)::int from events.custom_event) as events,
                (select count(*)::int from pgboss.job where name = 'custom-events' and state in ('created', 'retry', 'active')) as backlog`,
      );
      await client.end();
      return rows[0]!;
    };
    const started = performance.now();
    const result = await load({ url: `http://127.0.0.1:${service.port}`, stores });
    const ours = summarize('POST /events (group commit)', result);
    let progress = await stored();
    const atEndOfLoad = { ...progress, seconds: (performance.now() - started) / 1000 };
    while (progress.backlog > 0) {
      await new Promise((r) => setTimeout(r, 250));
      progress = await stored();
    }
    const drainedAfter = (performance.now() - started) / 1000;
    const processingRate = progress.events / drainedAfter;
    console.log(
      `processing                         ${progress.events} events stored; ${atEndOfLoad.events} during the load (backlog ${atEndOfLoad.backlog}); drained ${drainedAfter.toFixed(1)} s after the start = ${processingRate.toFixed(0)} events/s`,
    );
    console.log(`\nratio accepted/s vs baseline: ${(ours.rate / base.rate).toFixed(2)}   (targets: >= 2000/s, p99 < 50 ms, processing >= 1000/s, ratio >= 1)`);

    // Processing capacity on its own: the same load with the workers paused builds a backlog
    // (which also shows ingestion without processing beside it), then the workers drain it.
    const { boss, deps } = service.runtime;
    await boss.offWork(CUSTOM_EVENTS_QUEUE);
    const before = (await stored()).events;
    summarize('POST /events, workers paused', await load({ url: `http://127.0.0.1:${service.port}`, stores }));
    const backlog = (await stored()).backlog;
    const drainStarted = performance.now();
    await startCustomEventWorkers(boss, new CustomEventService(deps.events!.orm, boss), deps.events!.logger);
    while ((await stored()).backlog > 0) await new Promise((r) => setTimeout(r, 100));
    const drainSeconds = (performance.now() - drainStarted) / 1000;
    const drainedEvents = (await stored()).events - before;
    console.log(`processing a backlog of ${backlog} jobs: ${drainedEvents} events stored in ${drainSeconds.toFixed(1)} s = ${(drainedEvents / drainSeconds).toFixed(0)} events/s`);
    try {
      if (SEGMENT_EVENTS > 0) await segments(config.databaseUrl!, `http://127.0.0.1:${service.port}`, stores[0]!);
    } finally {
      await service.stop();
    }
  } finally {
    await postgres.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Seeds one store with SEGMENT_EVENTS events and times segment queries through GraphQL. */
async function segments(databaseUrl: string, url: string, store: Target['stores'][number]): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', (err) => console.error('seeding connection failed', err));
  await client.connect();
  const seedStarted = performance.now();
  await client.query(
    `insert into events.customer (id, store_id, email, first_name, custom_fields, custom_field_dates, created_at, updated_at)
     select 'cus_seed' || lpad(i::text, 8, '0'), $1, 'seed' || i || '@example.com', 'Seed',
            jsonb_build_object('tier', case when i % 10 = 0 then 'gold' else 'silver' end, 'points', i % 500), '{}', now() - i * interval '1 minute', now()
       from generate_series(1, $2::int) i`,
    [store.storeId, SEGMENT_CUSTOMERS],
  );
  await client.query(
    `insert into events.custom_event (id, store_id, customer_id, event_name, event_timestamp, value, data, data_dates, received_at)
     select 'evt_seed' || lpad(i::text, 9, '0'), $1, 'cus_seed' || lpad((1 + (i::bigint * 7919) % $3::int)::text, 8, '0'),
            (array['Placed Order', 'Viewed Product', 'Added to Cart', 'Started Checkout', 'Opened Email'])[1 + i % 5],
            now() - (i % 365) * interval '1 day' - (i % 86400) * interval '1 second', i % 200,
            jsonb_strip_nulls(jsonb_build_object('total', (i % 200) + 0.5, 'sku', 'sku-' || (i % 1000), 'coupon', case when i % 7 = 0 then 'SUMMER' end,
                                                 'shippedAt', to_char(now() - (i % 300) * interval '1 day', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))),
            jsonb_build_object('shippedAt', extract(epoch from date_trunc('second', now() - (i % 300) * interval '1 day'))),
            now()
       from generate_series(1, $2::int) i`,
    [store.storeId, SEGMENT_EVENTS, SEGMENT_CUSTOMERS],
  );
  await client.query('analyze events.custom_event; analyze events.customer');
  await client.end();
  console.log(`\nsegments: seeded ${SEGMENT_EVENTS} events over ${SEGMENT_CUSTOMERS} customers in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s`);
  const definitions: [string, unknown][] = [
    ['Placed Order >= 3 times in 90 days with total > 150', { all: [{ event: { eventName: 'Placed Order', minCount: 3, withinLastDays: 90, where: [{ key: 'total', operator: 'GREATER_THAN', value: 150 }] } }] }],
    ['Placed Order with coupon EQUALS SUMMER (GIN)', { all: [{ event: { eventName: 'Placed Order', where: [{ key: 'coupon', operator: 'EQUALS', value: 'SUMMER' }] } }] }],
    ['shippedAt AFTER a date, at most 2 times', { all: [{ event: { eventName: 'Started Checkout', minCount: 0, maxCount: 2, where: [{ key: 'shippedAt', operator: 'AFTER', value: new Date(Date.now() - 30 * 86_400_000).toISOString() }] } }] }],
    ['tier gold OR opened an email in 7 days', { any: [{ profile: { field: 'customFields.tier', operator: 'EQUALS', value: 'gold' } }, { event: { eventName: 'Opened Email', withinLastDays: 7 } }] }],
  ];
  const query = `query($s: ID!, $d: SegmentDefinitionInput!) { segmentMembers(storeId: $s, definition: $d, first: 20) { totalCount edges { node { id } } } }`;
  for (const [name, definition] of definitions) {
    const times: number[] = [];
    let count = 0;
    for (let run = 0; run < 3; run++) {
      const t0 = performance.now();
      const res = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${store.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables: { s: store.storeId, d: definition } }),
      });
      const body = (await res.json()) as { data?: { segmentMembers: { totalCount: number } }; errors?: unknown };
      if (!body.data) throw new Error(`segment query failed: ${JSON.stringify(body.errors)}`);
      count = body.data.segmentMembers.totalCount;
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    console.log(`  ${name.padEnd(56)} ${String(count).padStart(6)} members   page + count in ${times[1]!.toFixed(0)} ms (median of 3)`);
  }
}

if (isMainThread) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
