import pg from 'pg';
import { freePort } from '../platform/db/embedded-postgres.js';
import { createBenchAccount, withBenchBed } from './support/compare.js';
import { startProcess } from './support/processes.js';

/**
 * `npm run bench:analytics`: `eventStats` (count and unique customers, a 90-day daily series over
 * BENCH_EVENTS events of one store) and `returnStats` (by REASON, a 90-day daily series over
 * BENCH_RETURNS returns and twice as many orders) through the whole HTTP -> gateway -> subgraph
 * path, against the straightforward SQL over the same tables (`group by date_trunc(...)`,
 * `count(distinct ...)`) measured in the same run, alternating, on a durable PostgreSQL. Data are
 * seeded set-based (the rollup triggers run as they would for any insert), then vacuumed.
 *
 * Then `returnStats` of a segment (every tenth of BENCH_ORDER_CUSTOMERS, 100,000, the orders' customers),
 * by ORDER_DATE, and of the segment by ORDER_DATE, each against the straightforward SQL.
 *
 * Knobs: BENCH_EVENTS (1,000,000), BENCH_RETURNS (500,000), BENCH_RUNS (20 of each, after 3
 * warm-up runs), BENCH_SESSION (events per shopping session, 4: a customer's events minutes apart).
 */

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const RETURNS = Number(process.env.BENCH_RETURNS ?? 500_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const SESSION = Number(process.env.BENCH_SESSION ?? 4);
const CUSTOMERS = Math.max(1, Math.round(EVENTS / 20));
/** The customers the orders belong to (by email), every tenth of them in the VIP segment (a custom field). */
const ORDER_CUSTOMERS = Number(process.env.BENCH_ORDER_CUSTOMERS ?? 100_000);
const ADMIN = 'bench-admin-token-0123456789abcdef';
const ZONE = 'America/New_York';
const DAY = 86_400_000;
// The data span 120 days before END; the window is the last 90 local days (across the autumn clock
// change: from midnight EDT to midnight EST, as a dashboard asks), 90 days and an hour.
const END = Date.parse('2026-12-01T05:00:00Z');
const WINDOW = { from: '2026-09-02T04:00:00.000Z', until: new Date(END).toISOString(), interval: 'DAY', timeZone: ZONE };

interface Figures {
  p50: number;
  p95: number;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

/** Runs the two alternately (warm-up first), `RUNS` times each; wall time per answer. */
async function alternate(service: () => Promise<unknown>, baseline: () => Promise<unknown>): Promise<[Figures, Figures]> {
  for (let i = 0; i < 3; i++) {
    await service();
    await baseline();
  }
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < RUNS; i++) {
    for (const [k, run] of [service, baseline].entries()) {
      const t0 = performance.now();
      await run();
      times[k]!.push(performance.now() - t0);
    }
  }
  return times.map((t) => {
    const sorted = [...t].sort((a, b) => a - b);
    return { p50: quantile(sorted, 0.5), p95: quantile(sorted, 0.95) };
  }) as [Figures, Figures];
}

async function main() {
  await withBenchBed('analytics', async ({ db, client, children }) => {
    const port = await freePort();
    const env = { DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', DEMO_ACCOUNT: 'false', API_RATE_LIMIT_PER_MINUTE: '100000000', NODE_ENV: 'production' };
    children.push(await startProcess('dist/server/main.js', ['all'], env, port));
    const base = `http://127.0.0.1:${port}`;
    const account = await createBenchAccount(base, ADMIN);
    const store = account.storeId;
    await client.connect();
    const start = new Date(END - 120 * DAY).toISOString();

    console.log(`seeding ${EVENTS.toLocaleString()} events of ${CUSTOMERS.toLocaleString()} customers (sessions of ${SESSION}), ${RETURNS.toLocaleString()} returns of ${(2 * RETURNS).toLocaleString()} orders...`);
    let t0 = performance.now();
    await client.query(
      `insert into events.customer (id, store_id, email, created_at, updated_at)
       select 'cus_B' || lpad(g::text, 24, '0'), $1, 'c' || g || '@bench.example', now(), now() from generate_series(1, $2::int) g`,
      [store, CUSTOMERS],
    );
    // A session: one customer's events minutes apart, at a time spread over the span (more in the evening).
    await client.query(
      `insert into events.custom_event (id, store_id, customer_id, event_name, event_timestamp, data, received_at)
       select 'evt_B' || lpad(g::text, 24, '0'), $1, 'cus_B' || lpad((1 + abs(hashint4(g / $4)) % $3)::text, 24, '0'), 'Viewed Product',
              $2::timestamptz + (abs(hashint4(g / $4 + 1000000007)) % (120 * 86400)) * interval '1 second' + (g % $4) * interval '2 minutes',
              jsonb_build_object('price', g % 200), now()
         from generate_series(0, $5::int - 1) g`,
      [store, start, CUSTOMERS, SESSION, EVENTS],
    );
    // The orders' customers the events do not know yet, and the VIP tier on every tenth.
    await client.query(
      `insert into events.customer (id, store_id, email, created_at, updated_at)
       select 'cus_B' || lpad(g::text, 24, '0'), $1, 'c' || g || '@bench.example', now(), now() from generate_series($2::int + 1, $3::int) g`,
      [store, CUSTOMERS, ORDER_CUSTOMERS],
    );
    await client.query(`update events.customer set custom_fields = '{"tier": "vip"}' where store_id = $1 and substring(email from 2 for position('@' in email) - 2)::int % 10 = 0`, [store]);
    const eventSeconds = (performance.now() - t0) / 1000;
    t0 = performance.now();
    await client.query(
      `insert into returns."order" (id, store_id, provider, external_id, name, currency, created_at, updated_at, customer_email)
       select 'ord_B' || lpad(g::text, 24, '0'), $1, 'custom', 'B-' || g, '#' || g, case when g % 10 = 0 then 'EUR' else 'USD' end,
              $2::timestamptz + (abs(hashint4(g)) % (120 * 86400)) * interval '1 second', now(), 'c' || (1 + abs(hashint4(g + 7)) % $4::int) || '@bench.example'
         from generate_series(1, $3::int) g`,
      [store, start, 2 * RETURNS, ORDER_CUSTOMERS],
    );
    await client.query(
      `insert into returns.order_line_item (id, order_id, external_id, position, sku, title, quantity, price)
       select 'oli_B' || lpad(g::text, 24, '0'), 'ord_B' || lpad(g::text, 24, '0'), 'l1', 0, 'SKU-' || (g % 400), 'Thing', 1 + g % 3, 10 + g % 90
         from generate_series(1, $1::int) g`,
      [2 * RETURNS],
    );
    // Every other order comes back, a few days after it was placed.
    await client.query(
      `insert into returns.return (id, store_id, order_id, status, type, order_name, currency, created_at, updated_at)
       select 'ret_B' || lpad(g::text, 24, '0'), $1, o.id, case when g % 9 = 0 then 'open' when g % 13 = 0 then 'rejected' else 'complete' end,
              'return', o.name, o.currency, o.created_at + (2 + g % 12) * interval '1 day', now()
         from generate_series(1, $2::int) g join returns."order" o on o.id = 'ord_B' || lpad((2 * g)::text, 24, '0')`,
      [store, RETURNS],
    );
    await client.query(
      `insert into returns.return_item (id, return_id, order_line_item_id, position, quantity, reason, compensation, refund_amount, product_value)
       select 'rti_B' || lpad(g::text, 24, '0'), 'ret_B' || lpad(g::text, 24, '0'), 'oli_B' || lpad((2 * g)::text, 24, '0'), 0, 1,
              (array['Too small', 'Too large', 'Arrived damaged', 'Not as described', 'Changed my mind', 'Wrong item', 'Late', 'Other'])[1 + abs(hashint4(g)) % 8],
              (array['refund', 'refund', 'store_credit', 'exchange'])[1 + g % 4], (10 + g % 90)::numeric + 0.99, 10 + g % 90
         from generate_series(1, $1::int) g`,
      [RETURNS],
    );
    const returnSeconds = (performance.now() - t0) / 1000;
    t0 = performance.now();
    // As the service keeps them: the minute's compaction job folds the appended deltas (reads are exact
    // either way), in passes short enough for the service's statement timeout.
    for (let i = 0; ; i++) {
      const { rows } = await client.query(`select exists (select 1 from returns.return_stat where not compacted) or exists (select 1 from returns.order_stat where not compacted) as dirty`);
      if (!(rows[0] as { dirty: boolean }).dirty) break;
      if (i === 600) throw new Error('the service did not compact the returns rollups within 10 minutes');
      await new Promise((r) => setTimeout(r, 1000));
    }
    const compactSeconds = (performance.now() - t0) / 1000;
    t0 = performance.now();
    await client.query('vacuum analyze');
    const [sizes] = (
      await client.query(
        `select (select count(*) from events.event_stat)::int as "eventRollup", (select count(*) from returns.return_stat)::int as "returnRollup",
                (select count(*) from returns.order_stat)::int as "orderRollup"`,
      )
    ).rows as { eventRollup: number; returnRollup: number; orderRollup: number }[];
    console.log(
      `seeded: events ${eventSeconds.toFixed(0)} s, returns and orders ${returnSeconds.toFixed(0)} s (triggers included), compacted within ${compactSeconds.toFixed(0)} s, vacuum ${((performance.now() - t0) / 1000).toFixed(0)} s; ` +
        `rollup rows: events ${sizes!.eventRollup.toLocaleString()}, returns ${sizes!.returnRollup.toLocaleString()}, orders ${sizes!.orderRollup.toLocaleString()}`,
    );

    const graphql = async <T>(query: string, variables: Record<string, unknown>): Promise<T> => {
      const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${account.apiSecret}`, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
      const body = (await res.json()) as { data?: T; errors?: unknown[] };
      if (!body.data || body.errors) throw new Error(`GraphQL: ${JSON.stringify(body.errors)}`);
      return body.data;
    };
    // The baseline runs its statements at once on a pool of its own, as the service runs its reads.
    const pool = new pg.Pool({ connectionString: db.url, max: 4 });
    // A run that fails leaves its idle connections to the database's shutdown: the failure is what to show.
    pool.on('error', () => {});
    const [from, until] = [WINDOW.from, WINDOW.until];

    const eventQuery = `query($s: ID!, $w: TimeWindowInput!) { eventStats(storeId: $s, eventName: "Viewed Product", window: $w) { totals { count uniqueCustomers } series { start measures { count uniqueCustomers } } } }`;
    const eventService = () => graphql<{ eventStats: { totals: { count: number; uniqueCustomers: number }; series: unknown[] } }>(eventQuery, { s: store, w: WINDOW });
    const eventBaseline = () =>
      pool.query(
        `select date_trunc('day', event_timestamp at time zone $5) as day, count(*)::int as count, count(distinct customer_id)::int as customers
           from events.custom_event where store_id = $1 and event_name = $2 and event_timestamp >= $3 and event_timestamp < $4 group by rollup (1)`,
        [store, 'Viewed Product', from, until, ZONE],
      );
    // The store's zone is the window's: whole local days then come from the day rollup, once a first
    // question in that zone has had it built (a job; the hourly rollup answers meanwhile).
    await graphql(`mutation($s: ID!, $i: UpdateStoreInput!) { updateStore(storeId: $s, input: $i) { storeId } }`, { s: store, i: { timeZone: ZONE } });
    t0 = performance.now();
    await eventService();
    for (;;) {
      const { rows } = await client.query<{ ready: boolean }>('select ready from events.event_stat_day_zone where store_id = $1 and time_zone = $2', [store, ZONE]);
      if (rows[0]?.ready) break;
      if (performance.now() - t0 > 600_000) throw new Error('the day rollup was not built within 10 minutes');
      await new Promise((r) => setTimeout(r, 200));
    }
    const [dayRows] = (await client.query<{ n: number }>('select count(*)::int as n from events.event_stat_day where store_id = $1', [store])).rows;
    console.log(`day rollup built in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${dayRows!.n.toLocaleString()} rows (store, name, local day, customer)`);
    const [ours, theirs] = await Promise.all([eventService(), eventBaseline()]);
    const total = theirs.rows.find((r: { day: Date | null }) => r.day === null) as { count: number; customers: number };
    if (ours.eventStats.totals.count !== total.count || ours.eventStats.totals.uniqueCustomers !== total.customers) {
      throw new Error(`eventStats and the SQL disagree: ${JSON.stringify(ours.eventStats.totals)} vs ${JSON.stringify(total)}`);
    }
    const eventFigures = await alternate(eventService, eventBaseline);

    const returnQuery = `query($s: ID!, $w: TimeWindowInput!) { returnStats(storeId: $s, window: $w, by: REASON) {
      totals { returns items returnRate refund { amount currency } storeCredit { amount currency } exchange { amount currency } }
      series { start measures { returns items returnRate refund { amount currency } storeCredit { amount currency } exchange { amount currency } } }
      groups { key measures { returns items returnRate refund { amount currency } } } } }`;
    const returnService = () => graphql<{ returnStats: { totals: { returns: number; items: number } } }>(returnQuery, { s: store, w: WINDOW });
    const money = `sum(i.refund_amount) filter (where i.compensation = 'refund') as refund, sum(i.refund_amount) filter (where i.compensation = 'store_credit') as store_credit,
                   sum(i.refund_amount) filter (where i.compensation = 'exchange') as exchange`;
    const returnBaseline = () =>
      Promise.all([
        pool.query(
          `select date_trunc('day', r.created_at at time zone $4) as day, r.currency, count(distinct r.id)::int as returns, coalesce(sum(i.quantity), 0)::int as items, ${money}
             from returns.return r left join returns.return_item i on i.return_id = r.id and i.status = 'active'
            where r.store_id = $1 and r.created_at >= $2 and r.created_at < $3 group by 1, 2`,
          [store, from, until, ZONE],
        ),
        pool.query(
          `select i.reason, r.currency, count(distinct r.id)::int as returns, sum(i.quantity)::int as items, ${money}
             from returns.return r join returns.return_item i on i.return_id = r.id and i.status = 'active'
            where r.store_id = $1 and r.created_at >= $2 and r.created_at < $3 group by 1, 2`,
          [store, from, until],
        ),
        pool.query(
          `select date_trunc('day', o.created_at at time zone $4) as day, sum(l.quantity)::int as units
             from returns."order" o join returns.order_line_item l on l.order_id = o.id and l.removed_at is null
            where o.store_id = $1 and o.created_at >= $2 and o.created_at < $3 group by 1`,
          [store, from, until, ZONE],
        ),
      ]);
    const [mine, sqlAnswer] = await Promise.all([returnService(), returnBaseline()]);
    const sqlReturns = sqlAnswer[0].rows.reduce((n: number, r: { returns: number }) => n + r.returns, 0);
    if (mine.returnStats.totals.returns !== sqlReturns) throw new Error(`returnStats and the SQL disagree: ${mine.returnStats.totals.returns} vs ${sqlReturns} returns`);
    const returnFigures = await alternate(returnService, returnBaseline);

    // Decisions section 22: the VIP segment's returns (the segment evaluated by the events subgraph,
    // its members' orders matched by email), and the whole store's by order date.
    const VIP = { all: [{ profile: { field: 'customFields.tier', operator: 'EQUALS', value: 'vip' } }] };
    const statsQuery = `query($s: ID!, $w: TimeWindowInput!, $f: ReturnStatsFilterInput, $b: ReturnStatsBasis) { returnStats(storeId: $s, window: $w, filter: $f, basis: $b) {
      totals { returns items returnRate refund { amount currency } storeCredit { amount currency } exchange { amount currency } }
      series { start measures { returns items returnRate refund { amount currency } storeCredit { amount currency } exchange { amount currency } } } } }`;
    type Stats = { returnStats: { totals: { returns: number; items: number } } };
    const segmentService = () => graphql<Stats>(statsQuery, { s: store, w: WINDOW, f: { segment: VIP } });
    const vipEmails = `(select lower(email) from events.customer where store_id = $1 and custom_fields ->> 'tier' = 'vip')`;
    // The units the VIPs ordered each day: the denominator on both bases.
    const vipUnits = () =>
      pool.query(
        `select date_trunc('day', o.created_at at time zone $4) as day, sum(l.quantity)::int as units
           from returns."order" o join returns.order_line_item l on l.order_id = o.id and l.removed_at is null
          where o.store_id = $1 and o.created_at >= $2 and o.created_at < $3 and lower(o.customer_email) in ${vipEmails} group by 1`,
        [store, from, until, ZONE],
      );
    const segmentBaseline = () =>
      Promise.all([
        pool.query(
          `select date_trunc('day', r.created_at at time zone $4) as day, r.currency, count(distinct r.id)::int as returns, coalesce(sum(i.quantity), 0)::int as items, ${money}
             from returns.return r join returns."order" o on o.id = r.order_id left join returns.return_item i on i.return_id = r.id and i.status = 'active'
            where r.store_id = $1 and r.created_at >= $2 and r.created_at < $3 and lower(o.customer_email) in ${vipEmails} group by 1, 2`,
          [store, from, until, ZONE],
        ),
        vipUnits(),
      ]);
    const orderDateService = () => graphql<Stats>(statsQuery, { s: store, w: WINDOW, b: 'ORDER_DATE' });
    const orderDateBaseline = () =>
      Promise.all([
        pool.query(
          `select date_trunc('day', o.created_at at time zone $4) as day, r.currency, count(distinct r.id)::int as returns, coalesce(sum(i.quantity), 0)::int as items, ${money}
             from returns."order" o join returns.return r on r.order_id = o.id left join returns.return_item i on i.return_id = r.id and i.status = 'active'
            where o.store_id = $1 and o.created_at >= $2 and o.created_at < $3 group by 1, 2`,
          [store, from, until, ZONE],
        ),
        pool.query(
          `select date_trunc('day', o.created_at at time zone $4) as day, sum(l.quantity)::int as units
             from returns."order" o join returns.order_line_item l on l.order_id = o.id and l.removed_at is null
            where o.store_id = $1 and o.created_at >= $2 and o.created_at < $3 group by 1`,
          [store, from, until, ZONE],
        ),
      ]);
    // "The return rate of my VIP segment by order date": the VIPs' orders placed each day, what came back of them.
    const segmentOrderDateService = () => graphql<Stats>(statsQuery, { s: store, w: WINDOW, f: { segment: VIP }, b: 'ORDER_DATE' });
    const segmentOrderDateBaseline = () =>
      Promise.all([
        pool.query(
          `select date_trunc('day', o.created_at at time zone $4) as day, r.currency, count(distinct r.id)::int as returns, coalesce(sum(i.quantity), 0)::int as items, ${money}
             from returns."order" o join returns.return r on r.order_id = o.id left join returns.return_item i on i.return_id = r.id and i.status = 'active'
            where o.store_id = $1 and o.created_at >= $2 and o.created_at < $3 and lower(o.customer_email) in ${vipEmails} group by 1, 2`,
          [store, from, until, ZONE],
        ),
        vipUnits(),
      ]);
    const agree = async (name: string, service: () => Promise<Stats>, baseline: () => Promise<[pg.QueryResult, pg.QueryResult]>) => {
      const [ours, sqlRows] = await Promise.all([service(), baseline()]);
      const n = sqlRows[0].rows.reduce((sum: number, r: { returns: number }) => sum + r.returns, 0);
      if (ours.returnStats.totals.returns !== n) throw new Error(`${name}: returnStats and the SQL disagree: ${ours.returnStats.totals.returns} vs ${n} returns`);
      return ours.returnStats.totals.returns;
    };
    const segmentReturns = await agree('segment', segmentService, segmentBaseline);
    const segmentFigures = await alternate(segmentService, segmentBaseline);
    const orderDateReturns = await agree('order date', orderDateService, orderDateBaseline);
    const orderDateFigures = await alternate(orderDateService, orderDateBaseline);
    const segmentOrderDateReturns = await agree('segment by order date', segmentOrderDateService, segmentOrderDateBaseline);
    const segmentOrderDateFigures = await alternate(segmentOrderDateService, segmentOrderDateBaseline);

    // Return-history segments over the 100,000 order customers: the segments' copy of the returns and
    // orders, made as the backfill makes it (the seed wrote no outbox events; rows the backfill, running
    // meanwhile, copied already are left).
    t0 = performance.now();
    await client.query(
      `insert into events.customer_order (order_id, store_id, email, phone, units, created_at)
       select o.id, o.store_id, lower(o.customer_email), o.customer_phone,
              (select coalesce(sum(l.quantity), 0) from returns.order_line_item l where l.order_id = o.id and l.removed_at is null), o.created_at
         from returns."order" o where o.store_id = $1
       on conflict do nothing`,
      [store],
    );
    await client.query(
      `insert into events.customer_return (return_id, store_id, email, phone, status, reasons, units, created_at)
       select r.id, r.store_id, lower(o.customer_email), o.customer_phone, r.status,
              array(select distinct i.reason from returns.return_item i where i.return_id = r.id and i.status = 'active'),
              (select coalesce(sum(i.quantity), 0) from returns.return_item i where i.return_id = r.id and i.status = 'active'), r.created_at
         from returns.return r join returns."order" o on o.id = r.order_id where r.store_id = $1
       on conflict do nothing`,
      [store],
    );
    await client.query('analyze events.customer_order; analyze events.customer_return');
    console.log(`segments' copy of ${RETURNS.toLocaleString()} returns and ${(2 * RETURNS).toLocaleString()} orders made in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    const membersQuery = `query($s: ID!, $d: SegmentDefinitionInput!) { segmentMembers(storeId: $s, definition: $d, first: 50) { totalCount edges { node { id } } } }`;
    type Members = { segmentMembers: { totalCount: number } };
    const historySegments: [string, unknown, () => Promise<pg.QueryResult>][] = [
      [
        'returned 3 times in 90 days',
        { all: [{ returns: { minCount: 3, withinLastDays: 90 } }] },
        () =>
          pool.query(
            `select count(*)::int as n from events.customer c where c.store_id = $1 and lower(c.email) in (
               select lower(o.customer_email) from returns.return r join returns."order" o on o.id = r.order_id
                where r.store_id = $1 and r.status <> 'deleted' and r.created_at >= now() - interval '90 days' group by 1 having count(*) >= 3)`,
            [store],
          ),
      ],
      [
        'return rate above 40 %',
        { all: [{ returnRate: { greaterThan: 0.4 } }] },
        () =>
          pool.query(
            `with returned as (select lower(o.customer_email) as email, sum(i.quantity) as units from returns.return r join returns."order" o on o.id = r.order_id
                                 join returns.return_item i on i.return_id = r.id and i.status = 'active'
                                where r.store_id = $1 and r.status not in ('rejected', 'deleted') group by 1),
                  ordered as (select lower(o.customer_email) as email, sum(l.quantity) as units from returns."order" o
                                 join returns.order_line_item l on l.order_id = o.id and l.removed_at is null where o.store_id = $1 group by 1)
             select count(*)::int as n from events.customer c join ordered d on d.email = lower(c.email) join returned t on t.email = d.email
              where c.store_id = $1 and d.units > 0 and t.units::numeric / d.units > 0.4`,
            [store],
          ),
      ],
    ];
    const historyFigures: [string, number, [Figures, Figures]][] = [];
    for (const [name, definition, baseline] of historySegments) {
      const service = () => graphql<Members>(membersQuery, { s: store, d: definition });
      const [ours, theirs] = await Promise.all([service(), baseline()]);
      const n = (theirs.rows[0] as { n: number }).n;
      if (ours.segmentMembers.totalCount !== n) console.log(`  ${name}: segmentMembers counts ${ours.segmentMembers.totalCount}, the SQL ${n} (compared as measured)`);
      historyFigures.push([name, ours.segmentMembers.totalCount, await alternate(service, baseline)]);
    }
    await pool.end();

    const line = (name: string, [s, b]: [Figures, Figures], target: number) =>
      `${name}\n  service  p50 ${s.p50.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms (target: p50 at most ${target} ms: ${s.p50 <= target ? 'met' : 'NOT met'})\n` +
      `  SQL      p50 ${b.p50.toFixed(1)} ms, p95 ${b.p95.toFixed(1)} ms\n  service/SQL p50 ${(s.p50 / b.p50).toFixed(2)}x (target: at most 1.00x: ${s.p50 <= b.p50 ? 'met' : 'NOT met'})`;
    console.log(`\n${RUNS} runs of each, alternating; window ${WINDOW.from} .. ${WINDOW.until} by DAY in ${ZONE}; service = HTTP -> gateway -> subgraph (one process)\n`);
    console.log(line(`eventStats count + uniqueCustomers, ${ours.eventStats.series.length} days over ${EVENTS.toLocaleString()} events (${ours.eventStats.totals.count.toLocaleString()} in the window)`, eventFigures, 300));
    console.log(line(`returnStats by REASON, ${RETURNS.toLocaleString()} returns (${mine.returnStats.totals.returns.toLocaleString()} in the window)`, returnFigures, 150));
    console.log(line(`returnStats of the VIP segment (${(ORDER_CUSTOMERS / 10).toLocaleString()} of ${ORDER_CUSTOMERS.toLocaleString()} customers), by day (${segmentReturns.toLocaleString()} returns)`, segmentFigures, 300));
    console.log(line(`returnStats by ORDER_DATE, by day (${orderDateReturns.toLocaleString()} returns of the window's orders)`, orderDateFigures, 300));
    console.log(line(`returnStats of the VIP segment by ORDER_DATE, by day (${segmentOrderDateReturns.toLocaleString()} returns of the VIPs' orders of the window)`, segmentOrderDateFigures, 300));
    for (const [name, members, figures] of historyFigures) console.log(line(`segmentMembers (page of 50 + totalCount) ${name}: ${members.toLocaleString()} of ${ORDER_CUSTOMERS.toLocaleString()} customers`, figures, 300));
  });
}

await main();
