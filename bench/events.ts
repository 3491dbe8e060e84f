import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import express from 'express';
import pg from 'pg';
import { loadConfig } from '../platform/config.js';
import { startEmbeddedPostgres, withDatabase } from '../platform/db/embedded-postgres.js';
import { createLogger } from '../platform/observability/logger.js';
import { projectRoot } from '../platform/project-root.js';
import { startService } from '../server/main.js';
import { startCustomEventWorkers, stopCustomEventWorkers } from '../subgraphs/events/custom-event.job.js';
import { eventsSubgraph } from '../subgraphs/events/index.js';
import { median, send, type HttpTarget } from './support/load.js';
import { createBenchAccount } from './support/compare.js';
import { startProcess, stopProcess } from './support/processes.js';
import { loadEventHistory } from './support/event-history.js';
import { BENCH_TRACING, change, cpuTimeMs, startCollector, TELEMETRY_REGISTER, tracingVariants } from './support/tracing.js';
import { freePort } from '../platform/db/embedded-postgres.js';

/**
 * `npm run bench:events`: drives POST /v2.2/stores/{storeId}/events over HTTP
 * with many concurrent clients across 50 stores, on a durable PostgreSQL
 * (fsync on), and compares it with a baseline measured in the same run: a
 * minimal Express handler inserting the raw body into one table. The load
 * runs in a worker thread so the clients do not share the server's event loop.
 *
 * Each round measures the baseline, then the service with its workers
 * processing beside the load, then with them paused (a backlog builds), then
 * the drain of that backlog; rounds repeat (baseline and service alternating),
 * and the summary reports medians, ratios as medians of per-round ratios. All
 * of it twice: in one process (`npm start`), and with the workers in their own
 * process (`start:worker`) beside the facade (`start:gateway`). Then
 * back-pressure: a facade with a small EVENTS_MAX_BACKLOG and no workers.
 *
 * Between the two deployments, segment evaluation on a store seeded with
 * BENCH_SEGMENT_EVENTS events (1,000,000; 0 skips it) over 20,000 customers,
 * through GraphQL. After the second, scale-out: a backlog drained by 1, 2 and
 * 3 worker processes started together (BENCH_WORKER_PROCESSES), alternating.
 *
 * BENCH_TRACING=1: instead, POST /events with processing beside it on the
 * service with tracing off, on (100 % sampled) and on at 1 %, each its own
 * process and database, in the same run (bench/support/tracing.ts).
 *
 * BENCH_HISTORY_EVENTS=10000000: instead of what follows the one-process rounds, the same rounds
 * again after loading that many events of history over BENCH_HISTORY_MONTHS (24) monthly
 * partitions (bench/support/event-history.ts), and the change of each ratio against the empty table.
 *
 * Knobs: BENCH_SECONDS (10), BENCH_ROUNDS (3), BENCH_CLIENTS (64), BENCH_STORES (50), BENCH_SEGMENT_EVENTS, BENCH_WORKER_PROCESSES ("1,2,3").
 */

interface Target {
  url: string;
  /** How long the load runs (SECONDS by default). */
  seconds?: number;
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
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** BENCH_HISTORY_EVENTS (0: none): after the one-process rounds, load this many events of history and run the rounds again over them. */
const HISTORY_EVENTS = Number(process.env.BENCH_HISTORY_EVENTS ?? 0);
const HISTORY_MONTHS = Number(process.env.BENCH_HISTORY_MONTHS ?? 24);
const WORKER_PROCESSES = (process.env.BENCH_WORKER_PROCESSES ?? '1,2,3').split(',').filter(Boolean).map(Number);

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

/** The load generator (worker thread): CLIENTS loops posting events for the target's seconds. */
async function runLoad(target: Target): Promise<LoadResult> {
  const latencies: number[] = [];
  const other: Record<string, number> = {};
  let accepted = 0;
  let sequence = 0;
  const started = performance.now();
  const deadline = started + (target.seconds ?? SECONDS) * 1000;
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

/**
 * Every outbox consumer busy: the first store gets a webhook subscription to its custom events and
 * an active flow on 'Placed Order' (a webhook step), both calling a receiver in this process. The
 * fan-out and the flows then read every processed event, and act on that store's.
 */
async function busyConsumers(base: string, store: Target['stores'][number], hookUrl: string): Promise<void> {
  const call = async (path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${store.secret}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok || text.includes('"errors"')) throw new Error(`${path}: ${res.status} ${text}`);
  };
  await call(`/v2.2/stores/${store.storeId}/webhooks`, { webhook: { callback: { url: hookUrl, auth: null }, topic: 'custom_event' } });
  await call('/graphql', {
    query: 'mutation($s: ID!, $i: FlowInput!) { createFlow(storeId: $s, input: $i) { id } }',
    variables: { s: store.storeId, i: { name: 'Bench flow', trigger: { eventName: 'Placed Order' }, steps: [{ webhook: { url: hookUrl } }] } },
  });
}

/** The baseline: the least an HTTP endpoint can do to keep a request durably. */
let baselines = 0;

async function baseline(serverUrl: string, poolSize: number): Promise<LoadResult> {
  // A fresh table each time, so every baseline run starts from the same empty state as the first.
  const url = await createDatabase(serverUrl, `bench_baseline_${++baselines}`);
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

type RunFigures = ReturnType<typeof summarize>;

interface Round {
  baseline: RunFigures;
  beside: RunFigures;
  /** Events the workers stored while the load ran beside them, per second of load. */
  processedDuringLoad: number;
  paused: RunFigures;
  drain: number;
}

/** The part of a run that differs between one process and workers in their own process. */
interface Deployment {
  name: string;
  url: string;
  pauseWorkers(): Promise<void>;
  resumeWorkers(): Promise<void>;
}

interface Counts {
  events: number;
  backlog: number;
}

/** One small pool per database for the progress reads. */
const progressPools = new Map<string, pg.Pool>();

function progress(databaseUrl: string): pg.Pool {
  let pool = progressPools.get(databaseUrl);
  if (!pool) progressPools.set(databaseUrl, (pool = new pg.Pool({ connectionString: databaseUrl, max: 1 })));
  return pool;
}

/** The events stored and the events waiting in the inbox; read between runs only. */
async function counts(databaseUrl: string): Promise<Counts> {
  const { rows } = await progress(databaseUrl).query<Counts>(`select (select count(*)::int from events.custom_event) as events, (select count(*)::int from events.event_inbox) as backlog`);
  return rows[0]!;
}
/** One cheap statement (not the counts above, whose count(*) of every stored event would compete with the drain it times). */
async function waiting(databaseUrl: string): Promise<boolean> {
  const { rows } = await progress(databaseUrl).query<{ found: boolean }>('select exists(select 1 from events.event_inbox) as found');
  return rows[0]!.found;
}

/** The outbox's last sequence number: a processed batch publishes past it. */
async function lastSequence(databaseUrl: string): Promise<string> {
  const { rows } = await progress(databaseUrl).query<{ n: string }>('select last_value::text as n from platform.outbox_sequence');
  return rows[0]!.n;
}

/** Whether a batch processed since `sequence` was read has committed (it published events past it). */
async function publishedAfter(databaseUrl: string, sequence: string): Promise<boolean> {
  const { rows } = await progress(databaseUrl).query<{ found: boolean }>('select exists(select 1 from platform.outbox_event where sequence > $1) as found', [sequence]);
  return rows[0]!.found;
}

async function drained(databaseUrl: string): Promise<void> {
  while (await waiting(databaseUrl)) await new Promise((r) => setTimeout(r, 100));
}

/**
 * The rate at which the workers `start` starts drain the backlog queued while none ran. Timed from
 * the first batch committed, so a worker process's start-up is not counted as processing time (the
 * first batch's own time is not counted either: under 1 % of a backlog).
 */
async function timedDrain(databaseUrl: string, start: () => Promise<unknown>): Promise<{ backlog: number; drain: number }> {
  const { backlog } = await counts(databaseUrl);
  const before = await lastSequence(databaseUrl);
  await start();
  while (!(await publishedAfter(databaseUrl, before))) await new Promise((r) => setTimeout(r, 20));
  const drainStarted = performance.now();
  await drained(databaseUrl);
  return { backlog, drain: backlog / ((performance.now() - drainStarted) / 1000) };
}

/**
 * One round: the baseline, then the service with its workers processing
 * beside the load, then with the workers paused (a backlog builds), then the
 * drain of that backlog. Baseline and service alternate round by round, so a
 * noisy neighbour slows both sides of a round's ratios alike.
 */
async function round(index: number, serverUrl: string, poolSize: number, deployment: Deployment, databaseUrl: string, stores: Target['stores']): Promise<Round> {
  const base = summarize(await baseline(serverUrl, poolSize));
  await drained(databaseUrl);
  const start = await counts(databaseUrl);
  const besideResult = await load({ url: deployment.url, stores });
  const beside = summarize(besideResult);
  const processedDuringLoad = ((await counts(databaseUrl)).events - start.events) / besideResult.seconds;
  await drained(databaseUrl);

  await deployment.pauseWorkers();
  const paused = summarize(await load({ url: deployment.url, stores }));
  const { backlog, drain } = await timedDrain(databaseUrl, () => deployment.resumeWorkers());
  console.log(
    `  round ${index} [${deployment.name}]: base ${base.rate.toFixed(0)}/s; processing beside ${beside.rate.toFixed(0)}/s (x${(beside.rate / base.rate).toFixed(2)}, p99 ${beside.p99.toFixed(1)} ms, ${processedDuringLoad.toFixed(0)}/s stored meanwhile); paused ${paused.rate.toFixed(0)}/s (x${(paused.rate / base.rate).toFixed(2)}, p99 ${paused.p99.toFixed(1)} ms); drain of ${backlog} jobs ${drain.toFixed(0)}/s`,
  );
  return { baseline: base, beside, processedDuringLoad, paused, drain };
}

function summarize(r: LoadResult) {
  const sorted = [...r.latenciesMs].sort((a, b) => a - b);
  return { rate: r.accepted / r.seconds, p50: percentile(sorted, 50), p99: percentile(sorted, 99), other: r.other };
}

/** The summary lines (their wording is stable: tools read them): medians over the rounds, ratios as medians of per-round ratios. */
function report(deployment: string, rounds: Round[]): void {
  const m = (pick: (r: Round) => number) => median(rounds.map(pick));
  const line = (name: string, pick: (r: Round) => RunFigures, ratio?: boolean) =>
    console.log(
      `${name.padEnd(44)} median of ${rounds.length} = ${m((r) => pick(r).rate).toFixed(0).padStart(5)} events/s   p50 ${m((r) => pick(r).p50).toFixed(1)} ms   p99 ${m((r) => pick(r).p99).toFixed(1)} ms${ratio ? `   ratio to baseline ${m((r) => pick(r).rate / r.baseline.rate).toFixed(2)} (median of per-round ratios)` : ''}`,
    );
  console.log(`\n${deployment}`);
  line('baseline (express + one insert)', (r) => r.baseline);
  line('POST /events, processing beside it', (r) => r.beside, true);
  console.log(`${'processing during that load'.padEnd(44)} median of ${rounds.length} = ${m((r) => r.processedDuringLoad).toFixed(0).padStart(5)} events/s`);
  line('POST /events, workers paused', (r) => r.paused, true);
  console.log(`${'processing a backlog'.padEnd(44)} median of ${rounds.length} = ${m((r) => r.drain).toFixed(0).padStart(5)} events/s`);
}

/** The history run's figures against the empty table's, each as a median over the rounds (ratios: of per-round ratios). */
function compareHistory(empty: Round[], over: Round[]): void {
  const m = (rounds: Round[], pick: (r: Round) => number) => median(rounds.map(pick));
  const rows: [string, (r: Round) => number][] = [
    ['processing beside, ratio to baseline', (r) => r.beside.rate / r.baseline.rate],
    ['workers paused, ratio to baseline', (r) => r.paused.rate / r.baseline.rate],
    ['backlog drain, events/s', (r) => r.drain],
  ];
  console.log('\nover history against the empty table');
  for (const [name, pick] of rows) {
    const a = m(empty, pick);
    const b = m(over, pick);
    console.log(`${name.padEnd(44)} empty ${a.toFixed(2).padStart(8)}   history ${b.toFixed(2).padStart(8)}   change ${(((b - a) / a) * 100).toFixed(1).padStart(6)} %`);
  }
}

async function main(): Promise<void> {
  const logger = createLogger('warn');
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-events-'));
  if (process.getuid?.() === 0) chmodSync(dataDir, 0o755);
  const postgres = await startEmbeddedPostgres({ dataDir, logger, durable: true });
  const children: ChildProcess[] = [];
  // The webhook subscription and the flow call it; closed at the end whichever way the run ends.
  let hooks = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hooks++;
      res.writeHead(204).end();
    });
  });
  try {
    if (BENCH_TRACING) return await tracingOverhead(postgres.url, children);
    const databaseUrl = await createDatabase(postgres.url, 'bench_service');
    const env = { ...process.env, PORT: '0', HOST: '127.0.0.1', DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', DEMO_ACCOUNT: 'false',
      // The load exceeds 100 requests/s per store; the counters still run, the limit just never bites.
      EVENTS_RATE_LIMIT_PER_SECOND: '1000000',
      // Back-pressure would refuse the paused runs' load; the bench measures what is accepted.
      EVENTS_MAX_BACKLOG: '100000000',
      // The webhook subscription and the flow call a receiver on this machine.
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' };
    const config = loadConfig(env);
    console.log(`custom events benchmark: ${CLIENTS} clients, ${STORES} stores, ${SECONDS} s per run, ${ROUNDS} rounds (baseline and service alternating), PostgreSQL with fsync on, pool ${config.dbPoolSize}\n`);

    // One process: facade, gateway, subgraphs and workers (`npm start`).
    const service = await startService(config, logger, 'all');
    const stores: Target['stores'] = [];
    for (let i = 0; i < STORES; i++) {
      const account = await service.runtime.accounts.createAccount({ name: `Bench ${i}`, storeName: `Bench store ${i}` });
      stores.push({ storeId: account.storeId, secret: account.apiSecret });
    }
    const hookUrl = `http://127.0.0.1:${await listen(receiver)}/hook`;
    await busyConsumers(`http://127.0.0.1:${service.port}`, stores[0]!, hookUrl);
    console.log(`every consumer busy: a webhook subscription and an active flow in ${stores[0]!.storeId}\n`);
    const { boss, deps } = service.runtime;
    const oneProcess: Deployment = {
      name: 'one process',
      url: `http://127.0.0.1:${service.port}`,
      pauseWorkers: () => stopCustomEventWorkers(boss),
      resumeWorkers: async () => {
        const { events, inbox } = service.runtime.servicesOf(eventsSubgraph)!;
        await startCustomEventWorkers(deps.events!, events, inbox, { batchSize: config.eventsBatchSize, concurrency: config.eventsWorkerConcurrency });
      },
    };
    const together: Round[] = [];
    for (let i = 1; i <= ROUNDS; i++) together.push(await round(i, postgres.url, config.dbPoolSize, oneProcess, databaseUrl, stores));
    report('one process (npm start: facade, gateway, subgraphs and workers together)', together);
    try {
      if (HISTORY_EVENTS > 0) {
        // The same rounds again over a table that already holds years of events; then stop (the rest measures other things).
        console.log(`\nloading ${HISTORY_EVENTS} events of history into ${HISTORY_MONTHS} monthly partitions`);
        await loadEventHistory(databaseUrl, stores.map((s) => s.storeId), HISTORY_EVENTS, { months: HISTORY_MONTHS });
        const over: Round[] = [];
        for (let i = 1; i <= ROUNDS; i++) over.push(await round(i, postgres.url, config.dbPoolSize, oneProcess, databaseUrl, stores));
        report(`one process, over ${HISTORY_EVENTS} events of history`, over);
        compareHistory(together, over);
        return;
      }
      if (SEGMENT_EVENTS > 0) await segments(databaseUrl, oneProcess.url, stores[0]!);
    } finally {
      await service.stop();
    }

    // Workers in their own process (`npm run start:worker`) beside the facade process (`start:gateway`).
    const facade = await startService(config, logger, 'gateway');
    const startWorker = () => {
      // BENCH_NODE_ARGS (--cpu-prof, ...) as for every bench's measured processes.
      const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
      const child = spawn(process.execPath, [...nodeArgs, join(projectRoot(), 'dist', 'server', 'main.js'), 'worker'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
      children.push(child);
      return child;
    };
    const stopWorker = async (child: ChildProcess) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    };
    let worker = startWorker();
    const split: Deployment = {
      name: 'split',
      url: `http://127.0.0.1:${facade.port}`,
      pauseWorkers: () => stopWorker(worker),
      resumeWorkers: async () => {
        worker = startWorker();
      },
    };
    const apart: Round[] = [];
    const scaled = new Map<number, number[]>(WORKER_PROCESSES.map((n) => [n, []]));
    try {
      for (let i = 1; i <= ROUNDS; i++) apart.push(await round(i, postgres.url, config.dbPoolSize, split, databaseUrl, stores));
      // Scale-out: a backlog of twice a run's load queued with no worker, then drained by n worker processes started together.
      await split.pauseWorkers();
      for (let i = 1; i <= ROUNDS; i++) {
        for (const n of WORKER_PROCESSES) {
          await load({ url: split.url, stores, seconds: 2 * SECONDS });
          let started: ChildProcess[] = [];
          const { backlog, drain } = await timedDrain(databaseUrl, async () => (started = Array.from({ length: n }, startWorker)));
          await Promise.all(started.map(stopWorker));
          scaled.get(n)!.push(drain);
          console.log(`  scale-out round ${i}: ${n} worker process${n > 1 ? 'es' : ''} drained ${backlog} jobs at ${drain.toFixed(0)}/s`);
        }
      }
    } finally {
      await facade.stop();
    }
    report('workers in their own process (start:worker beside start:gateway)', apart);
    console.log('\nscale-out: a backlog drained by worker processes started together');
    for (const [n, drains] of scaled) console.log(`${`${n} worker process${n > 1 ? 'es' : ''}`.padEnd(44)} median of ${drains.length} = ${median(drains).toFixed(0).padStart(5)} events/s`);
    console.log(`\nwebhook and flow requests received meanwhile: ${hooks}`);

    // Back-pressure: with the workers stopped, a facade whose EVENTS_MAX_BACKLOG is small accepts up to that depth, then answers 503.
    await split.pauseWorkers();
    const limit = 5_000;
    const limited = await startService(loadConfig({ ...env, EVENTS_MAX_BACKLOG: String(limit) }), logger, 'gateway');
    try {
      const r = await load({ url: `http://127.0.0.1:${limited.port}`, stores });
      const { backlog } = await counts(databaseUrl);
      console.log(`\nback-pressure (workers stopped, EVENTS_MAX_BACKLOG ${limit}): ${r.accepted} accepted, then ${r.other[503] ?? 0} answered 503 with Retry-After; backlog ${backlog}`);
    } finally {
      await limited.stop();
    }
  } catch (err) {
    console.error(err);
    throw err;
  } finally {
    // The services stop before the database does (stopped under them, their pools' idle connections fail).
    await Promise.all(children.map((child) => (child.signalCode === null ? stopProcess(child) : undefined)));
    receiver.closeAllConnections();
    receiver.close();
    for (const pool of progressPools.values()) await pool.end().catch(() => undefined);
    await postgres.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The settings every measured service shares: the load exceeds the per-store rate limit, and back-pressure would refuse what is measured. */
const SERVICE_ENV = { HOST: '127.0.0.1', LOG_LEVEL: 'silent', DEMO_ACCOUNT: 'false', EVENTS_RATE_LIMIT_PER_SECOND: '1000000', EVENTS_MAX_BACKLOG: '100000000' };
const BENCH_ADMIN = 'bench-admin-token-0123456789abcdef';

/**
 * BENCH_TRACING=1: each variant (tracing off, 100 %, 1 %) as its own `npm start` process on its
 * own database, measured in rounds whose order rotates, after one warm-up run each.
 */
async function tracingOverhead(serverUrl: string, children: ChildProcess[]): Promise<void> {
  const collector = await startCollector();
  children.push(collector.child);
  const deployed: { name: string; databaseUrl: string; target: Target; pid: number | undefined }[] = [];
  for (const [i, variant] of tracingVariants(collector.url).entries()) {
    const databaseUrl = await createDatabase(serverUrl, `bench_tracing_${i}`);
    const port = await freePort();
    const child = await startProcess('dist/server/main.js', ['all'], { ...SERVICE_ENV, DATABASE_URL: databaseUrl, ADMIN_TOKEN: BENCH_ADMIN, PORT: String(port), ...variant.env }, port, TELEMETRY_REGISTER);
    children.push(child);
    const url = `http://127.0.0.1:${port}`;
    const stores: Target['stores'] = [];
    for (let s = 0; s < STORES; s++) {
      const account = await createBenchAccount(url, BENCH_ADMIN);
      stores.push({ storeId: account.storeId, secret: account.apiSecret });
    }
    deployed.push({ name: variant.name, databaseUrl, target: { url, stores }, pid: child.pid });
  }
  console.log(
    `tracing overhead, POST /events with processing beside it: ${CLIENTS} clients, ${STORES} stores, ${SECONDS} s per run, ${ROUNDS} rounds (variants in rotating order, after a warm-up run each); CPU: the service process's per event accepted, until it is stored\n`,
  );
  for (const d of deployed) {
    await load(d.target);
    await drained(d.databaseUrl);
  }
  type Run = RunFigures & { processed: number; cpuUs: number };
  const runs = deployed.map(() => [] as Run[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < deployed.length; k++) {
      const v = (k + round) % deployed.length;
      const d = deployed[v]!;
      await drained(d.databaseUrl);
      const before = await counts(d.databaseUrl);
      const cpuBefore = cpuTimeMs(d.pid);
      const result = await load(d.target);
      const processed = ((await counts(d.databaseUrl)).events - before.events) / result.seconds;
      await drained(d.databaseUrl);
      const cpuUs = cpuBefore === undefined ? NaN : ((cpuTimeMs(d.pid)! - cpuBefore) * 1000) / result.accepted;
      const figures = { ...summarize(result), processed, cpuUs };
      runs[v]!.push(figures);
      console.log(
        `  round ${round + 1} [${d.name}]: ${figures.rate.toFixed(0)} events/s accepted, p50 ${figures.p50.toFixed(1)} ms, p99 ${figures.p99.toFixed(1)} ms, ${processed.toFixed(0)}/s stored meanwhile, CPU ${cpuUs.toFixed(0)} µs/event`,
      );
    }
  }
  const m = (v: number, pick: (r: Run) => number) => median(runs[v]!.map(pick));
  console.log('');
  deployed.forEach((d, v) => {
    const vs = v
      ? `   accepted ${change(m(v, (r) => r.rate), m(0, (r) => r.rate))}, p50 ${change(m(v, (r) => r.p50), m(0, (r) => r.p50))}, p99 ${change(m(v, (r) => r.p99), m(0, (r) => r.p99))}, stored ${change(m(v, (r) => r.processed), m(0, (r) => r.processed))}, CPU ${change(m(v, (r) => r.cpuUs), m(0, (r) => r.cpuUs))}`
      : '';
    console.log(
      `${d.name.padEnd(28)} median of ${ROUNDS} = ${m(v, (r) => r.rate).toFixed(0).padStart(5)} events/s   p50 ${m(v, (r) => r.p50).toFixed(1)} ms   p99 ${m(v, (r) => r.p99).toFixed(1)} ms   stored meanwhile ${m(v, (r) => r.processed).toFixed(0)}/s   CPU ${m(v, (r) => r.cpuUs).toFixed(0)} µs/event${vs}`,
    );
  });
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
