import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../platform/config.js';
import { encodeCursor } from '../platform/api/cursor.js';
import { startEmbeddedPostgres } from '../platform/db/embedded-postgres.js';
import { createLogger } from '../platform/observability/logger.js';
import { startService } from '../server/main.js';
import { inventoryItemListFilters, type InventoryItemFilters } from '../subgraphs/inventory/inventory-item.service.js';
import { InventoryKind } from '../subgraphs/inventory/inventory-item.rules.js';

/*
 * List inventory items through the REST facade with 1,000,000 items across 20
 * locations: page 1 against page 5,000 (the baseline is page 1 of the same
 * list, in the same run), unfiltered and filtered. Keyset pagination should
 * make the depth ratio about 1.
 *
 *   npm run bench:inventory            (throwaway embedded PostgreSQL)
 *   BENCH_DATABASE_URL=postgres://...  (an empty database of your own)
 */
const ITEMS = Number(process.env.BENCH_ITEMS ?? 1_000_000);
const LOCATIONS = 20;
const PAGE_SIZE = 20;
const DEEP_PAGE = 5_000;
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const WARMUP = 20;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function main() {
  const logger = createLogger('warn');
  let dataDir: string | undefined;
  let stopDatabase = async () => {};
  let databaseUrl = process.env.BENCH_DATABASE_URL;
  if (!databaseUrl) {
    dataDir = mkdtempSync(join(tmpdir(), 'inventory-bench-'));
    const server = await startEmbeddedPostgres({ dataDir, logger, durable: false });
    databaseUrl = server.url;
    stopDatabase = () => server.stop();
  }
  const config = loadConfig({ ...process.env, DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', DEMO_ACCOUNT: 'false', API_RATE_LIMIT_PER_MINUTE: '1000000' });
  const service = await startService(config, logger, 'all');
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const { storeId, apiSecret } = await service.runtime.accounts.createAccount({ name: 'Bench', storeName: 'Bench store' });

    // Set-based seed: locations, items, then each item's levels (every item at one location,
    // every even item also at the first location, so that location holds about half the items).
    const seedStart = performance.now();
    await db.query(`insert into inventory.location (id, store_id, name) select 'loc_bench_' || lpad(g::text, 2, '0'), $1, 'Location ' || g from generate_series(0, $2 - 1) g`, [storeId, LOCATIONS]);
    await db.query(
      `insert into inventory.inventory_item (id, store_id, sku, name, kind, quantity, created_at, updated_at)
       select 'inv_bench_' || lpad(i::text, 8, '0'), $1, 'SKU-' || i, 'Item ' || i,
              case when i % 10 = 0 then 'RETURN' else 'PRODUCT' end,
              (1 + i % 5) * case when i % 2 = 0 and i % $3 <> 0 then 2 else 1 end,
              timestamptz '2026-01-01T00:00:00Z' + i * interval '1 second',
              timestamptz '2026-01-01T00:00:00Z' + i * interval '1 second' + (i % 7) * interval '1 millisecond'
         from generate_series(1, $2) i`,
      [storeId, ITEMS, LOCATIONS],
    );
    await db.query(
      `insert into inventory.inventory_level (item_id, location_id, store_id, kind, sku, lot_number, quantity, item_updated_at)
       select i.id, 'loc_bench_' || lpad(loc::text, 2, '0'), i.store_id, i.kind, i.sku, i.lot_number, 1 + n % 5, i.updated_at
         from inventory.inventory_item i
         cross join lateral (select substr(i.id, 11)::int as n) x
         cross join lateral (select n % $2 as loc union all select 0 where n % 2 = 0 and n % $2 <> 0) l
        where i.store_id = $1`,
      [storeId, LOCATIONS],
    );
    await db.query('analyze inventory.inventory_item');
    await db.query('analyze inventory.inventory_level');
    const seedSeconds = (performance.now() - seedStart) / 1000;
    const [{ levels }] = (await db.query('select count(*)::int as levels from inventory.inventory_level')).rows as { levels: number }[];
    console.log(`seeded ${ITEMS.toLocaleString('en')} items, ${levels.toLocaleString('en')} location rows, ${LOCATIONS} locations in ${seedSeconds.toFixed(1)} s`);

    const base = `http://127.0.0.1:${service.port}/v2.2/stores/${storeId}/inventory-items`;
    const scenarios: { name: string; filters: InventoryItemFilters; query: string }[] = [
      { name: 'unfiltered', filters: {}, query: '' },
      { name: 'location_id', filters: { locationId: 'loc_bench_00' }, query: 'location_id=loc_bench_00' },
      { name: 'kind=PRODUCT', filters: { kind: InventoryKind.PRODUCT }, query: 'kind=PRODUCT' },
      { name: 'location_id+kind', filters: { locationId: 'loc_bench_00', kind: InventoryKind.PRODUCT }, query: 'location_id=loc_bench_00&kind=PRODUCT' },
    ];

    const fetchPage = async (url: string) => {
      const t = performance.now();
      const res = await fetch(url, { headers: { authorization: `Bearer ${apiSecret}` } });
      const body = (await res.json()) as { inventory_items?: { id: string }[] };
      const ms = performance.now() - t;
      if (res.status !== 200 || body.inventory_items?.length !== PAGE_SIZE) throw new Error(`unexpected answer ${res.status} for ${url}`);
      return { ms, first: body.inventory_items[0]!.id };
    };

    console.log(`\nGET /v2.2/stores/{id}/inventory-items, page-size ${PAGE_SIZE}, ${SAMPLES} samples each (ms)`);
    console.log('list               page      p50      p99   ratio p50 (page 5,000 / page 1)');
    const results: Record<string, unknown>[] = [];
    for (const s of scenarios) {
      // The cursor a client holds after 4,999 pages: the sort key of the last row of page 4,999.
      const skip = (DEEP_PAGE - 1) * PAGE_SIZE - 1;
      const kind = s.filters.kind ?? null;
      const { rows } = s.filters.locationId
        ? await db.query<{ sortAt: string; id: string }>(
            `select to_char(item_updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "sortAt", item_id as id
               from inventory.inventory_level where location_id = $1 and store_id = $2 and quantity > 0 and ($3::text is null or kind = $3)
              order by item_updated_at desc, item_id desc offset $4 limit 1`,
            [s.filters.locationId, storeId, kind, skip],
          )
        : await db.query<{ sortAt: string; id: string }>(
            `select to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "sortAt", id
               from inventory.inventory_item where store_id = $1 and quantity > 0 and ($2::text is null or kind = $2)
              order by updated_at desc, id desc offset $3 limit 1`,
            [storeId, kind, skip],
          );
      const cursor = encodeCursor([rows[0]!.sortAt, rows[0]!.id], inventoryItemListFilters(storeId, s.filters));
      const sep = s.query ? '&' : '';
      const page1 = `${base}?${s.query}${sep}page-size=${PAGE_SIZE}`;
      const deep = `${page1}&page-continue=${encodeURIComponent(cursor)}`;
      const check = await fetchPage(deep);
      if (check.first === rows[0]!.id) throw new Error('deep page repeats the cursor row');

      for (let i = 0; i < WARMUP; i++) {
        await fetchPage(page1);
        await fetchPage(deep);
      }
      const times = { first: [] as number[], deep: [] as number[] };
      for (let i = 0; i < SAMPLES; i++) {
        // Alternate so drift (caches, other load on the machine) affects both equally.
        times.first.push((await fetchPage(page1)).ms);
        times.deep.push((await fetchPage(deep)).ms);
      }
      const stats = (xs: number[]) => {
        const sorted = [...xs].sort((a, b) => a - b);
        return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
      };
      const a = stats(times.first);
      const b = stats(times.deep);
      const ratio = b.p50 / a.p50;
      console.log(`${s.name.padEnd(18)} 1     ${a.p50.toFixed(2).padStart(8)} ${a.p99.toFixed(2).padStart(8)}`);
      console.log(`${''.padEnd(18)} 5,000 ${b.p50.toFixed(2).padStart(8)} ${b.p99.toFixed(2).padStart(8)}   ${ratio.toFixed(2)}x ${ratio <= 1.5 ? '(target <= 1.5x: met)' : '(target <= 1.5x: MISSED)'}`);
      results.push({ list: s.name, page1: a, page5000: b, ratio: Number(ratio.toFixed(3)) });
    }
    if (process.env.BENCH_JSON) console.log(JSON.stringify(results));
  } finally {
    await db.end();
    await service.stop();
    await stopDatabase();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
