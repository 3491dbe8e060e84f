import { isDeepStrictEqual } from 'node:util';
import { freePort } from '../platform/db/embedded-postgres.js';
import { comparer, createBenchAccount, printComparisons, printPageCost, withBenchBed, type Comparison } from './support/compare.js';
import { closedLoop, get, percentile, type HttpTarget } from './support/load.js';
import { startProcess } from './support/processes.js';

/**
 * `npm run bench:compat`: the Loop-compatible list walked to its end
 * (`GET /api/v1/warehouse/return/list?paginate=true&pageSize=100`, following
 * `nextPageUrl`) over 100,000 returns, its first and last pages under load,
 * and `details` by `order_name`, through the whole facade -> gateway ->
 * subgraph path, against a hand-written Express + pg baseline serving the
 * same JSON from the same tables, measured in the same run on the same database.
 */
const RETURNS = Number(process.env.BENCH_RETURNS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const PAGE_SIZE = 100;
const ADMIN = 'bench-admin-token-0123456789abcdef';

interface Walk {
  pages: number;
  returns: number;
  seconds: number;
  latencies: number[];
  lastUrl: string;
}

/** Follows nextPageUrl from the first page to the end, as a Loop client does. */
async function walk(target: HttpTarget, firstPath: string): Promise<Walk> {
  const latencies: number[] = [];
  let path: string | null = firstPath;
  let returns = 0;
  let lastUrl = firstPath;
  const started = performance.now();
  while (path) {
    const t0 = performance.now();
    const res = await get(target, path);
    latencies.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`walk failed at ${path}: ${res.status} ${res.body.slice(0, 200)}`);
    const body = JSON.parse(res.body) as { returns: unknown[]; nextPageUrl: string | null };
    returns += body.returns.length;
    lastUrl = path;
    path = body.nextPageUrl ? new URL(body.nextPageUrl).pathname + new URL(body.nextPageUrl).search : null;
  }
  return { pages: latencies.length, returns, seconds: (performance.now() - started) / 1000, latencies, lastUrl };
}

function describeWalk(name: string, w: Walk): string {
  const sorted = [...w.latencies].sort((a, b) => a - b);
  const head = w.latencies.slice(0, 20).sort((a, b) => a - b);
  const tail = w.latencies.slice(-20).sort((a, b) => a - b);
  return `${name.padEnd(34)} ${w.pages} pages, ${w.returns} returns in ${w.seconds.toFixed(1)} s (${(w.pages / w.seconds).toFixed(0)} pages/s)   p50 ${percentile(sorted, 50).toFixed(2)} ms   first 20 p50 ${percentile(head, 50).toFixed(2)} ms   last 20 p50 ${percentile(tail, 50).toFixed(2)} ms`;
}

/** A page's answer with the origin taken out (each target links to itself). */
const withoutOrigin = (body: string, port: number) => JSON.parse(body.replaceAll(`127.0.0.1:${port}`, 'HOST')) as unknown;

async function main() {
  await withBenchBed('compat', async ({ db, client, children }) => {
    const port = await freePort();
    const env = {
      DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', DEMO_ACCOUNT: 'false',
      COMPAT_RATE_LIMIT_PER_MINUTE: '100000000', NODE_ENV: 'production',
    };
    children.push(await startProcess('dist/server/main.js', ['all'], env, port));
    const base = `http://127.0.0.1:${port}`;
    const account = await createBenchAccount(base, ADMIN);
    const auth = { authorization: `Bearer ${account.apiSecret}`, 'content-type': 'application/json' };
    const order = {
      id: 'BENCH-0', name: '#B0', currency: 'USD', customer: { email: 'bench@example.com', firstName: 'B', lastName: 'E' },
      lineItems: [{ id: 'l1', sku: 'SKU-1', title: 'Thing', productId: 'p1', variantId: 'v1', quantity: 2, price: '19.99', tax: '1.60', discount: '0.40' }],
    };
    await fetch(`${base}/v2.2/stores/${account.storeId}/custom/orders`, { method: 'POST', headers: auth, body: JSON.stringify(order) });
    const template = (await (
      await fetch(`${base}/v2.2/stores/${account.storeId}/returns`, {
        method: 'POST', headers: auth, body: JSON.stringify({ data: { provider: 'custom', externalOrderId: 'BENCH-0', items: [{ lineItemId: 'l1', quantity: 1, reason: 'bench' }] } }),
      })
    ).json()) as { return: { id: string } };

    console.log(`seeding ${RETURNS.toLocaleString()} orders and returns...`);
    const t0 = performance.now();
    await client.connect();
    // Copies of an order and of a return made through the API: one order (one line) per return, a second apart.
    await client.query(
      `insert into returns."order" (id, store_id, provider, external_id, name, currency, customer_email, customer_phone, customer_first_name, customer_last_name, shipping_cost, created_at, updated_at)
       select 'ord_B' || lpad(g::text, 25, '0'), o.store_id, o.provider, 'BENCH-' || g, '#B' || g, o.currency, o.customer_email, o.customer_phone, o.customer_first_name, o.customer_last_name,
              o.shipping_cost, now() - g * interval '1 second', now() - g * interval '1 second'
         from returns."order" o, generate_series(1, $2::int) g where o.id = (select order_id from returns.return where id = $1)`,
      [template.return.id, RETURNS],
    );
    await client.query(
      `insert into returns.order_line_item (id, order_id, external_id, position, product_id, variant_id, sku, title, variant_title, quantity, price, tax, discount)
       select 'oli_B' || lpad(g::text, 25, '0'), 'ord_B' || lpad(g::text, 25, '0'), l.external_id, 0, l.product_id, l.variant_id, l.sku, l.title, l.variant_title, l.quantity, l.price, l.tax, l.discount
         from returns.order_line_item l, generate_series(1, $2::int) g where l.order_id = (select order_id from returns.return where id = $1)`,
      [template.return.id, RETURNS],
    );
    await client.query(
      `insert into returns.return (id, store_id, order_id, status, type, provider, order_name, currency, source, destination, notes, compensation_methods, created_at, updated_at)
       select 'ret_B' || lpad(g::text, 25, '0'), t.store_id, 'ord_B' || lpad(g::text, 25, '0'), t.status, t.type, t.provider, '#B' || g, t.currency, t.source, t.destination, t.notes,
              t.compensation_methods, now() - g * interval '1 second', now() - g * interval '1 second'
         from returns.return t, generate_series(1, $2::int) g where t.id = $1`,
      [template.return.id, RETURNS],
    );
    await client.query(
      `insert into returns.return_item (id, return_id, order_line_item_id, position, quantity, reason, compensation, refund_amount, product_value)
       select 'rti_B' || lpad(g::text, 25, '0'), 'ret_B' || lpad(g::text, 25, '0'), 'oli_B' || lpad(g::text, 25, '0'), 0, 1, i.reason, i.compensation, i.refund_amount, i.product_value
         from returns.return_item i, generate_series(1, $2::int) g where i.return_id = $1`,
      [template.return.id, RETURNS],
    );
    // The template itself falls outside the measured window: every page of the walk, the last included, is full.
    await client.query(`update returns.return set created_at = now() - interval '200 days', updated_at = now() - interval '200 days' where id = $1`, [template.return.id]);
    await client.query('vacuum analyze');
    console.log(`seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const baselinePort = await freePort();
    children.push(await startProcess('dist/bench/compat-baseline.js', [], { DATABASE_URL: db.url, PORT: String(baselinePort) }, baselinePort));
    const service: HttpTarget = { port, headers: { 'x-authorization': account.compatKey } };
    const baseline: HttpTarget = { port: baselinePort, headers: { 'x-authorization': account.compatKey } };

    // One window for every request, covering all the returns.
    const from = encodeURIComponent(new Date(Date.now() - (RETURNS + 3600) * 1000).toISOString());
    const to = encodeURIComponent(new Date(Date.now() + 3600_000).toISOString());
    const firstPage = `/api/v1/warehouse/return/list?paginate=true&pageSize=${PAGE_SIZE}&from=${from}&to=${to}`;

    // Same answers from both, or the comparison means nothing.
    for (const path of [firstPage, `/api/v1/warehouse/return/details?order_name=${encodeURIComponent('#B42')}`]) {
      const [a, b] = await Promise.all([get(service, path), get(baseline, path)]);
      if (a.status !== 200 || !isDeepStrictEqual(withoutOrigin(a.body, port), withoutOrigin(b.body, baselinePort))) throw new Error(`service and baseline disagree on ${path}:\n${a.body.slice(0, 400)}\n${b.body.slice(0, 400)}`);
    }

    const only = process.env.BENCH_CASES?.split(',');
    const wanted = (name: string) => !only || only.some((c) => name.includes(c));
    const walks: [string, Walk, Walk][] = [];
    if (wanted('walk')) {
      // Warm up each target with a part of a walk, then walk it whole.
      const measure = async (t: HttpTarget) => {
        await closedLoop(() => get(t, firstPage), 4, Math.min(3, SECONDS));
        return walk(t, firstPage);
      };
      walks.push(['walk to the end (1 client)', await measure(service), await measure(baseline)]);
    }
    const lastPage = walks[0]?.[1].lastUrl;
    const [lastService, lastBaseline] = walks[0] ? [walks[0][1].lastUrl, walks[0][2].lastUrl] : [undefined, undefined];

    const results: Comparison[] = [];
    const both = comparer(service, baseline, results);
    await both('list page 1 (100 returns), 8 clients', (t) => closedLoop(() => get(t, firstPage), 8, SECONDS));
    if (lastPage) {
      await both(`list last page, 8 clients`, (t) => closedLoop(() => get(t, t === service ? lastService! : lastBaseline!), 8, SECONDS));
    }
    let n = 0;
    await both('details by order_name, 16 clients', (t) => closedLoop(() => get(t, `/api/v1/warehouse/return/details?order_name=${encodeURIComponent(`#B${(n++ % RETURNS) + 1}`)}`), 16, SECONDS));

    console.log(`\n${RETURNS.toLocaleString()} returns; ${SECONDS} s per run; service = facade -> gateway -> returns subgraph (one process)\n`);
    for (const [name, s, b] of walks) {
      console.log(name);
      console.log(`  ${describeWalk('service', s)}`);
      console.log(`  ${describeWalk('baseline (Express + pg)', b)}`);
      console.log(`  service/baseline throughput ${(b.seconds / s.seconds).toFixed(2)}x`);
    }
    printComparisons(results);
    printPageCost('last page', results, 'list page 1', 'list last page');
  });
}

await main();
