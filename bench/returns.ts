import { isDeepStrictEqual } from 'node:util';
import { encodeCursor, setCursorSigningKey } from '../platform/api/cursor.js';
import { sortAtSql } from '../platform/db/keyset.js';
import { freePort } from '../platform/db/embedded-postgres.js';
import { comparer, createBenchAccount, printComparisons, printPageCost, withBenchBed, type Comparison } from './support/compare.js';
import { closedLoop, get, median, openLoop, type HttpTarget } from './support/load.js';
import { startProcess, stopProcess } from './support/processes.js';
import { BENCH_TRACING, compareTracing, TELEMETRY_REGISTER, type BenchCase } from './support/tracing.js';

/**
 * `npm run bench:returns`: GET /v2.2/returns/{id} and 100-item list pages
 * (page 1 and page 5,000) through the whole facade -> gateway -> subgraph path,
 * against a hand-written Express + pg baseline serving the same JSON from the
 * same tables, measured in the same run on the same database. The open-loop
 * case runs BENCH_ROUNDS times (3), alternating, and its summary gives medians.
 *
 * BENCH_TRACING=1: instead of the baseline, the service with tracing off, on
 * (100 % sampled) and on at 1 %, in the same run (bench/support/tracing.ts).
 */
const RETURNS = Number(process.env.BENCH_RETURNS ?? 500_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Rounds of the open-loop case, service and baseline alternating: its p99 moves with whatever else the machine does. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PAGE_SIZE = 100;
const DEEP_PAGE = Math.min(5000, Math.floor(RETURNS / 100));
const ADMIN = 'bench-admin-token-0123456789abcdef';

async function main() {
  await withBenchBed('returns', async ({ db, client, children }) => {
    const port = await freePort();
    const env = { DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', DEMO_ACCOUNT: 'false', API_RATE_LIMIT_PER_MINUTE: '100000000', NODE_ENV: 'production' };
    children.push(await startProcess('dist/server/main.js', ['all'], env, port));
    const base = `http://127.0.0.1:${port}`;
    const account = await createBenchAccount(base, ADMIN);
    const auth = { authorization: `Bearer ${account.apiSecret}`, 'content-type': 'application/json' };
    const order = {
      id: 'BENCH-1', name: '#1', currency: 'USD', customer: { email: 'bench@example.com', firstName: 'B', lastName: 'E' },
      lineItems: [{ id: 'l1', sku: 'SKU-1', title: 'Thing', quantity: RETURNS + 10, price: '19.99', tax: '1.60', discount: '0.00' }],
    };
    await fetch(`${base}/v2.2/stores/${account.storeId}/custom/orders`, { method: 'POST', headers: auth, body: JSON.stringify(order) });
    const template = await (
      await fetch(`${base}/v2.2/stores/${account.storeId}/returns`, {
        method: 'POST', headers: auth, body: JSON.stringify({ data: { provider: 'custom', externalOrderId: 'BENCH-1', items: [{ lineItemId: 'l1', quantity: 1, reason: 'bench' }] } }),
      })
    ).json() as { return: { id: string } };

    console.log(`seeding ${RETURNS.toLocaleString()} returns...`);
    const t0 = performance.now();
    await client.connect();
    // Copies of a return made through the API, one item each, a second apart.
    await client.query(
      `insert into returns.return (id, store_id, order_id, status, type, provider, order_name, currency, source, destination, notes, compensation_methods, created_at, updated_at)
       select 'ret_B' || lpad(g::text, 25, '0'), t.store_id, t.order_id, t.status, t.type, t.provider, t.order_name, t.currency, t.source, t.destination, t.notes,
              t.compensation_methods, now() - g * interval '1 second', now() - g * interval '1 second'
         from returns.return t, generate_series(1, $2::int) g where t.id = $1`,
      [template.return.id, RETURNS],
    );
    await client.query(
      `insert into returns.return_item (id, return_id, order_line_item_id, position, quantity, reason, compensation, refund_amount, product_value)
       select 'rti_B' || lpad(g::text, 25, '0'), 'ret_B' || lpad(g::text, 25, '0'), i.order_line_item_id, 0, 1, i.reason, i.compensation, i.refund_amount, i.product_value
         from returns.return_item i, generate_series(1, $2::int) g where i.return_id = $1`,
      [template.return.id, RETURNS],
    );
    // Settle the bulk insert (visibility map, statistics) so autovacuum does not run during the measurements.
    await client.query('vacuum analyze');
    console.log(`seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const { rows: keyRows } = await client.query(`select value from platform.setting where key = 'cursor_key'`);
    setCursorSigningKey(Buffer.from(keyRows[0].value, 'base64'));
    const { rows: deep } = await client.query(
      `select ${sortAtSql('updated_at')}, id from returns.return
        where store_id = $1 order by updated_at desc, id desc offset $2 limit 1`,
      [account.storeId, (DEEP_PAGE - 1) * PAGE_SIZE - 1],
    );
    const deepCursor = encodeURIComponent(encodeCursor([deep[0].sortAt, deep[0].id], { list: 'returns', storeId: account.storeId }));

    const ids = (await client.query(`select id from returns.return where store_id = $1 order by random() limit 2000`, [account.storeId])).rows.map((r) => r.id as string);
    let n = 0;
    const byId = (t: HttpTarget) => () => get(t, `/v2.2/returns/${ids[n++ % ids.length]}`);
    const page1 = (t: HttpTarget) => () => get(t, `/v2.2/stores/${account.storeId}/returns?page-size=${PAGE_SIZE}`);
    const pageDeep = (t: HttpTarget) => () => get(t, `/v2.2/stores/${account.storeId}/returns?page-size=${PAGE_SIZE}&page-continue=${deepCursor}`);

    if (BENCH_TRACING) {
      // The process that seeded leaves: each variant is measured beside the other two, idle.
      await stopProcess(children.pop()!);
      const cases: BenchCase[] = [
        ['GET /returns/{id}, 16 clients', (t) => closedLoop(byId(t), 16, SECONDS)],
        ['list page 1 (100 items), 8 clients', (t) => closedLoop(page1(t), 8, SECONDS)],
        ['GET /returns/{id} at 500 req/s', (t) => openLoop(byId(t), 500, SECONDS)],
      ];
      await compareTracing(
        cases,
        async (variant) => {
          const variantPort = await freePort();
          const child = await startProcess('dist/server/main.js', ['all'], { ...env, ...variant.env, PORT: String(variantPort) }, variantPort, TELEMETRY_REGISTER);
          children.push(child);
          return { target: { port: variantPort, headers: { authorization: auth.authorization } }, pid: child.pid };
        },
        children,
        ROUNDS,
      );
      console.log(`
${RETURNS.toLocaleString()} returns; ${SECONDS} s per run; service = facade -> gateway -> returns subgraph (one process)`);
      return;
    }

    const baselinePort = await freePort();
    children.push(await startProcess('dist/bench/returns-baseline.js', [], { DATABASE_URL: db.url, PORT: String(baselinePort) }, baselinePort));
    const service: HttpTarget = { port, headers: { authorization: auth.authorization } };
    const baseline: HttpTarget = { port: baselinePort, headers: { authorization: auth.authorization } };

    // Same answers from both, or the comparison means nothing.
    for (const path of [`/v2.2/returns/${ids[0]}`, `/v2.2/stores/${account.storeId}/returns?page-size=${PAGE_SIZE}&page-continue=${deepCursor}`]) {
      const [a, b] = await Promise.all([get(service, path), get(baseline, path)]);
      if (a.status !== 200 || !isDeepStrictEqual(JSON.parse(a.body), JSON.parse(b.body))) throw new Error(`service and baseline disagree on ${path}`);
    }

    const results: Comparison[] = [];
    const both = comparer(service, baseline, results);
    await both('GET /returns/{id}, 16 clients', (t) => closedLoop(byId(t), 16, SECONDS));
    await both('list page 1 (100 items), 8 clients', (t) => closedLoop(page1(t), 8, SECONDS));
    await both(`list page ${DEEP_PAGE} (100 items), 8 clients`, (t) => closedLoop(pageDeep(t), 8, SECONDS));
    for (let round = 1; round <= ROUNDS; round++) await both(`GET /returns/{id} at 500 req/s, round ${round}`, (t) => openLoop(byId(t), 500, SECONDS));

    console.log(`\n${RETURNS.toLocaleString()} returns; ${SECONDS} s per run; service = facade -> gateway -> returns subgraph (one process)\n`);
    printComparisons(results);
    printPageCost(`page ${DEEP_PAGE}`, results, 'list page 1 ', `list page ${DEEP_PAGE} `);
    const open = results.filter(([name]) => name.startsWith('GET /returns/{id} at 500 req/s'));
    if (open.length) {
      const p99s = (side: 1 | 2) => median(open.map((r) => r[side].p99));
      const ratio = median(open.map(([, s, b]) => s.p99 / b.p99));
      console.log(`\nGET /returns/{id} at 500 req/s, median of ${open.length} rounds: p99 ${p99s(1).toFixed(1)} ms (service) vs ${p99s(2).toFixed(1)} ms (baseline), ratio ${ratio.toFixed(2)}x (median of per-round ratios)`);
    }
  });
}

await main();
