import { findJobRows } from '../platform/jobs/queue-tables.js';
import 'reflect-metadata';
import { createServer } from 'node:net';
import { createBenchAccount, withBenchBed } from './support/compare.js';
import { percentile, send, type HttpTarget } from './support/load.js';
import { startProcess } from './support/processes.js';

/**
 * `npm run bench:flows`: the service in its own process (`all` role, durable
 * PostgreSQL, no SMTP or SMS provider: messages are rendered and RECORDED),
 * events posted over HTTP to `POST /v2.2/stores/{storeId}/events`.
 *
 * 1. Processing without flows (the baseline of the same run): a burst of
 *    events (queued through the bulk route, so acceptance is not what is
 *    measured) to a store without flows, timed until every event is stored.
 * 2. The same burst to a store with 20 active flows on that event: events
 *    processed per second again (the overhead ratio is 2 / 1), and runs
 *    started per second while the flows catch up.
 * 3. A steady rate (BENCH_RATE events/s for BENCH_SECONDS) to the store with
 *    20 flows: runs started per second, and p50/p99 from the 202 of an event
 *    to each of its messages being recorded.
 *
 * Each flow: a condition on the event's `total`, then a templated email
 * (or SMS in the else branch).
 *
 * Knobs: BENCH_SECONDS (5), BENCH_RATE (40 events/s: 800 runs/s offered),
 * BENCH_BURST (2000 events).
 */

const ADMIN = 'bench-admin-token-0123456789abcdef';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const RATE = Number(process.env.BENCH_RATE ?? 40);
const BURST = Number(process.env.BENCH_BURST ?? 2000);
const FLOWS = 20;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function eventBody(i: number, tag: string): string {
  return JSON.stringify({
    eventName: 'Order Placed',
    customer: { email: `c${i % 2000}@example.com`, phoneNumber: `+1555${String(i % 2000).padStart(7, '0')}`, firstName: 'Bench' },
    data: { total: (i % 200) + 0.5, orderNumber: `${tag}-${i}` },
    value: (i % 200) + 0.5,
    valueCurrency: 'EUR',
    uniqueId: `${tag}-${i}`,
  });
}

async function graphql<T>(base: string, token: string, query: string, variables: Record<string, unknown>): Promise<T> {
  const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data?: T; errors?: unknown };
  if (!body.data) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

async function main(): Promise<void> {
  await withBenchBed('flows', async ({ db, client, children }) => {
    const port = await freePort();
    const env = { DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', DEMO_ACCOUNT: 'false', EVENTS_RATE_LIMIT_PER_SECOND: '1000000', NODE_ENV: 'production' };
    children.push(await startProcess('dist/server/main.js', ['all'], env, port));
    await client.connect();
    const base = `http://127.0.0.1:${port}`;
    const plain = await createBenchAccount(base, ADMIN);
    const flowing = await createBenchAccount(base, ADMIN);

    const email = await graphql<{ createTemplate: { id: string } }>(base, flowing.apiSecret, `mutation($s: ID!, $i: CreateTemplateInput!) { createTemplate(storeId: $s, input: $i) { id } }`, {
      s: flowing.storeId,
      i: { name: 'Big order', channel: 'EMAIL', subject: 'Order {{ event.data.orderNumber }}', body: 'Hi {{ customer.firstName }}, {{ event.value | money }} at {{ store.name }} on {{ event.timestamp | date: "%b %d" }}.' },
    });
    const sms = await graphql<{ createTemplate: { id: string } }>(base, flowing.apiSecret, `mutation($s: ID!, $i: CreateTemplateInput!) { createTemplate(storeId: $s, input: $i) { id } }`, {
      s: flowing.storeId,
      i: { name: 'Small order', channel: 'SMS', body: 'Order {{ event.data.orderNumber }} received' },
    });
    for (let f = 0; f < FLOWS; f++) {
      await graphql(base, flowing.apiSecret, `mutation($s: ID!, $i: FlowInput!) { createFlow(storeId: $s, input: $i) { id } }`, {
        s: flowing.storeId,
        i: {
          name: `Flow ${f}`,
          trigger: { eventName: 'Order Placed' },
          steps: [{ condition: { if: { profile: { field: 'event.total', operator: 'GREATER_THAN', value: 100 } }, then: [{ sendEmail: { templateId: email.createTemplate.id, kind: 'transactional' } }], else: [{ sendSms: { templateId: sms.createTemplate.id, kind: 'transactional' } }] } }],
        },
      });
    }

    const target = (secret: string): HttpTarget => ({ port, headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' } });
    const count = async (text: string, params: unknown[]) => (await client.query<{ n: number }>(text, params)).rows[0]!.n;
    // Idle: no accepted event waiting, no job of these queues, and the flows have read every processed event from the outbox.
    const jobsOf = (names: string[]) => findJobRows({ executeSql: (text, values) => client.query(text, values) }, { names, unfinished: true });
    const idle = async (names: string[]) => {
      const pending = `select ((select count(*) from events.event_inbox)
        + (select count(*) from platform.outbox_event e, platform.outbox_consumer c where c.name = 'flow-triggers' and e.type = 'custom_event.created'
             and not pg_visible_in_snapshot(e.tx, c.snapshot) and not (c.target is not null and pg_visible_in_snapshot(e.tx, c.target) and e.sequence <= c.after)))::int as n`;
      while ((await count(pending, [])) + (await jobsOf(names)).length > 0) await new Promise((r) => setTimeout(r, 100));
    };

    /** Queues BURST events through the bulk route (100 per request), so acceptance does not bound what processing shows. */
    const burst = async (store: { storeId: string; apiSecret: string }, tag: string) => {
      const t = target(store.apiSecret);
      for (let from = 0; from < BURST; from += 100) {
        const events = Array.from({ length: Math.min(100, BURST - from) }, (_, k) => JSON.parse(eventBody(from + k, tag)) as unknown);
        const res = await send(t, 'POST', `/v2.2/stores/${store.storeId}/events/bulk`, JSON.stringify({ events }));
        if (res.status !== 202) throw new Error(`bulk refused: ${res.status} ${res.body}`);
      }
    };
    const processingRate = async (store: { storeId: string; apiSecret: string }, tag: string) => {
      const started = performance.now();
      await burst(store, tag);
      const acceptedIn = (performance.now() - started) / 1000;
      while ((await count(`select count(*)::int as n from events.custom_event where store_id = $1 and unique_id like $2`, [store.storeId, `${tag}-%`])) < BURST) await new Promise((r) => setTimeout(r, 50));
      const seconds = (performance.now() - started) / 1000;
      return { rate: BURST / seconds, seconds, acceptedIn };
    };

    console.log(`flows benchmark: ${FLOWS} active flows on a store, durable PostgreSQL, providers RECORDED; burst ${BURST} events (bulk); steady ${RATE} events/s for ${SECONDS} s\n`);
    // Warm-up (JIT, plans, pools), not measured.
    await processingRate(plain, 'warm');
    await idle([]);

    const without = await processingRate(plain, 'plain');
    console.log(`1. events processing, no flows         ${BURST} events stored in ${without.seconds.toFixed(2)} s = ${without.rate.toFixed(0)} events/s (accepted in ${without.acceptedIn.toFixed(2)} s)`);
    const runsBefore = await count(`select count(*)::int as n from events.flow_run where store_id = $1`, [flowing.storeId]);
    const burstStarted = performance.now();
    const withFlows = await processingRate(flowing, 'burst');
    await idle(['flow-triggers', 'flow-steps']);
    const burstSeconds = (performance.now() - burstStarted) / 1000;
    const burstRuns = (await count(`select count(*)::int as n from events.flow_run where store_id = $1`, [flowing.storeId])) - runsBefore;
    console.log(`2. events processing, ${FLOWS} flows         ${BURST} events stored in ${withFlows.seconds.toFixed(2)} s = ${withFlows.rate.toFixed(0)} events/s   ratio with/without flows ${(withFlows.rate / without.rate).toFixed(2)}x`);
    console.log(`   the burst's runs                     ${burstRuns} runs started and finished (messages recorded) ${burstSeconds.toFixed(2)} s after the burst began = ${(burstRuns / burstSeconds).toFixed(0)} runs/s`);

    // Steady rate: one event every 1/RATE s, each 202 timed.
    const acceptedAt = new Map<string, number>();
    const t = target(flowing.apiSecret);
    const steadyStarted = Date.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < RATE * SECONDS; i++) {
      const due = steadyStarted + (i * 1000) / RATE;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const tag = 'steady';
      pending.push(
        send(t, 'POST', `/v2.2/stores/${flowing.storeId}/events`, eventBody(i, tag)).then((res) => {
          if (res.status !== 202) throw new Error(`event refused: ${res.status}`);
          acceptedAt.set(`${tag}-${i}`, Date.now());
        }),
      );
    }
    await Promise.all(pending);
    await idle(['flow-triggers', 'flow-steps']);
    const { rows } = await client.query<{ uniqueId: string; recordedAt: Date; startedAt: Date }>(
      `select e.unique_id as "uniqueId", m.created_at as "recordedAt", r.started_at as "startedAt"
         from events.message m join events.flow_run r on r.id = m.flow_run_id join events.custom_event e on e.id = r.event_id
        where m.store_id = $1 and e.unique_id like 'steady-%'`,
      [flowing.storeId],
    );
    const latencies = rows.map((r) => r.recordedAt.getTime() - acceptedAt.get(r.uniqueId)!).sort((a, b) => a - b);
    const starts = rows.map((r) => r.startedAt.getTime()).sort((a, b) => a - b);
    const startSpan = (starts[starts.length - 1]! - starts[0]!) / 1000;
    console.log(
      `3. steady ${RATE} events/s (${RATE * FLOWS} runs/s offered)   ${rows.length} messages recorded; runs started ${(rows.length / Math.max(startSpan, 1e-3)).toFixed(0)}/s over ${startSpan.toFixed(1)} s; accepted -> recorded p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms`,
    );
    console.log(`\ntargets: >= 500 runs/s, p50 < 1000 ms from accepted to recorded, processing with ${FLOWS} flows >= 0.7x without`);
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
