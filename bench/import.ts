import { freePort } from '../platform/db/embedded-postgres.js';
import { createBenchAccount, withBenchBed } from './support/compare.js';
import { send, type HttpTarget } from './support/load.js';
import { startProcess } from './support/processes.js';

/**
 * `npm run bench:import`: return import (`POST /v2.2/stores/{storeId}/returns/bulk`), a merchant
 * bringing the history of another returns platform: BENCH_IMPORT_RETURNS returns (100,000) in
 * batches of 100 (the operation's maximum) sent by BENCH_CLIENTS clients (4) back to back, each
 * batch one transaction. The same batches go to the service (facade -> gateway -> returns
 * subgraph, one process) and to the baseline, a hand-written Express + pg handler
 * (`bench/import-baseline.ts`) that writes the same rows with the same set-based statements and
 * no validation, GraphQL or pipeline, in the same run on the same database (each into a store of
 * its own). The figure is imported returns per second (target: at least 2,000 for the service).
 */
const RETURNS = Number(process.env.BENCH_IMPORT_RETURNS ?? 100_000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 4);
const BATCH = 100;
const ADMIN = 'bench-admin-token-0123456789abcdef';

const STATUSES = ['complete', 'complete', 'complete', 'complete', 'rejected', 'open', 'in_transit', 'delivered'];
const DAY = 86_400_000;

/** Batch `b` of a side: varied returns of a year of history, one or two products, a third tagged. */
function batch(side: string, b: number, products: readonly string[]) {
  return {
    returns: Array.from({ length: BATCH }, (_, i) => {
      const n = b * BATCH + i;
      const created = Date.UTC(2025, 0, 1) + (n % 365) * DAY + (n % 86_400) * 1000;
      return {
        products: Array.from({ length: 1 + (n % 3 === 0 ? 1 : 0) }, (_, k) => ({ productId: products[(n + k) % products.length]!, quantity: 1 + (n % 2), reason: n % 5 ? 'Too small' : 'Damaged', condition: 'used' })),
        customer: { firstName: 'Customer', lastName: String(n), email: `customer${n % 20_000}@example.com` },
        externalReferenceId: `${side}-RMA-${n}`,
        trackingNumber: `1Z${String(n).padStart(16, '0')}`,
        carrier: 'UPS',
        currency: 'USD',
        shippingAddress: { line1: `${n} Main St`, city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' },
        status: STATUSES[n % STATUSES.length],
        createdAt: new Date(created).toISOString(),
        updatedAt: new Date(created + 3 * DAY).toISOString(),
        externalProvider: 'loop',
        ...(n % 3 === 0 ? { tags: ['Migrated'] } : {}),
      };
    }),
  };
}

/** Sends every batch with CLIENTS clients back to back; returns the seconds it took and each batch's latency. */
async function importAll(target: HttpTarget, storeId: string, side: string, products: readonly string[]): Promise<{ seconds: number; latencies: number[] }> {
  const batches = Math.ceil(RETURNS / BATCH);
  const bodies = Array.from({ length: batches }, (_, b) => JSON.stringify(batch(side, b, products)));
  let next = 0;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let b = next++; b < batches; b = next++) {
        const t0 = performance.now();
        const res = await send(target, 'POST', `/v2.2/stores/${storeId}/returns/bulk`, bodies[b], { 'content-type': 'application/json' });
        latencies.push(performance.now() - t0);
        const result = res.status === 200 ? (JSON.parse(res.body) as { processedCount: number }) : undefined;
        if (result?.processedCount !== BATCH) throw new Error(`${side}: batch ${b} answered ${res.status} ${res.body.slice(0, 300)}`);
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, latencies };
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function main() {
  await withBenchBed('import', async ({ db, client, children }) => {
    const port = await freePort();
    const env = { DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'warn', DEMO_ACCOUNT: 'false', API_RATE_LIMIT_PER_MINUTE: '100000000', NODE_ENV: 'production' };
    children.push(await startProcess('dist/server/main.js', ['all'], env, port));
    const base = `http://127.0.0.1:${port}`;
    const accounts = { service: await createBenchAccount(base, ADMIN), baseline: await createBenchAccount(base, ADMIN) };
    const products: Record<keyof typeof accounts, string[]> = { service: [], baseline: [] };
    for (const [side, account] of Object.entries(accounts) as [keyof typeof accounts, { storeId: string; apiSecret: string }][]) {
      for (let i = 0; i < 20; i++) {
        const res = await fetch(`${base}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${account.apiSecret}` },
          body: JSON.stringify({
            query: 'mutation($s: ID!, $i: UpsertProductInput!) { upsertProduct(storeId: $s, input: $i) { id } }',
            variables: { s: account.storeId, i: { sku: `SKU-${i}`, title: `Product ${i}`, variantTitle: 'M', upc: String(100000000000 + i) } },
          }),
        });
        products[side].push(((await res.json()) as { data: { upsertProduct: { id: string } } }).data.upsertProduct.id);
      }
    }
    await client.connect();
    // The returns subgraph knows the products once their events reached it.
    for (const started = Date.now(); ; ) {
      const { rows } = await client.query<{ n: number }>('select count(*)::int as n from returns.product_fact where product_id is not null');
      if (rows[0]!.n === 40) break;
      if (Date.now() - started > 60_000) throw new Error('the product facts did not arrive');
      await new Promise((r) => setTimeout(r, 200));
    }

    const baselinePort = await freePort();
    children.push(await startProcess('dist/bench/import-baseline.js', [], { DATABASE_URL: db.url, PORT: String(baselinePort) }, baselinePort));
    const service: HttpTarget = { port, headers: { authorization: `Bearer ${accounts.service.apiSecret}` } };
    const baseline: HttpTarget = { port: baselinePort, headers: { authorization: `Bearer ${accounts.baseline.apiSecret}` } };

    console.log(`importing ${RETURNS.toLocaleString()} returns in batches of ${BATCH}, ${CLIENTS} clients, into each side...`);
    const results: [string, { seconds: number; latencies: number[] }][] = [];
    results.push(['service', await importAll(service, accounts.service.storeId, 'S', products.service)]);
    await client.query('checkpoint');
    results.push(['baseline (Express + pg)', await importAll(baseline, accounts.baseline.storeId, 'B', products.baseline)]);

    // Both sides made the same rows, or the comparison means nothing.
    const counts = await client.query<{ storeId: string; returns: number; items: number }>(
      `select r.store_id as "storeId", count(distinct r.id)::int as returns, count(i.id)::int as items from returns.return r join returns.return_item i on i.return_id = r.id
        where r.store_id = any($1) group by r.store_id`,
      [[accounts.service.storeId, accounts.baseline.storeId]],
    );
    const byStore = new Map(counts.rows.map((r) => [r.storeId, r]));
    const s = byStore.get(accounts.service.storeId);
    const b = byStore.get(accounts.baseline.storeId);
    if (!s || !b || s.returns !== RETURNS || b.returns !== RETURNS || s.items !== b.items) throw new Error(`the sides made different rows: ${JSON.stringify(counts.rows)}`);

    console.log(`\n${RETURNS.toLocaleString()} returns (${s.items.toLocaleString()} items) per side; batches of ${BATCH}; ${CLIENTS} clients\n`);
    for (const [name, r] of results) {
      const sorted = [...r.latencies].sort((x, y) => x - y);
      console.log(`${name.padEnd(26)} ${(RETURNS / r.seconds).toFixed(0).padStart(6)} returns/s in ${r.seconds.toFixed(1)} s   batch p50 ${pct(sorted, 50).toFixed(0)} ms   p99 ${pct(sorted, 99).toFixed(0)} ms`);
    }
    const svc = results[0]![1].seconds;
    const bas = results[1]![1].seconds;
    console.log(`\nservice/baseline throughput ${(bas / svc).toFixed(2)}x; target at least 2,000 returns/s: ${RETURNS / svc >= 2000 ? 'met' : 'NOT met'}`);
  });
}

await main();
