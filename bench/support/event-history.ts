import pg from 'pg';

/**
 * A store's history before the benchmark's load: `total` custom events of 100,000 customers over
 * the stores, received over the `months` whole months before the current one (one partition each,
 * as the partitions job would have made them).
 *
 * Each month is generated inside PostgreSQL into a table of its own with no index (rows made by
 * `generate_series`, not sent over the wire: the same rows a COPY would load, without a client
 * producing gigabytes of text), then attached as a partition of `events.custom_event`, which builds
 * the partitioned table's indexes on it and checks its customers. The rollups are not fed (the
 * triggers fire on inserts into the partitioned table): the history is there for what ingestion
 * and processing touch (indexes, unique keys, partition routing), not for analytics.
 */
export async function loadEventHistory(databaseUrl: string, storeIds: readonly string[], total: number, options: { months?: number; log?: (line: string) => void } = {}): Promise<void> {
  const months = options.months ?? 24;
  const log = options.log ?? ((line: string) => console.log(line));
  const customers = 100_000;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("set maintenance_work_mem = '256MB'");
    const t0 = performance.now();
    await client.query(
      `insert into events.customer (id, store_id, email, created_at, updated_at)
       select 'cus_history_' || g, ($1::text[])[1 + g % cardinality($1::text[])], 'history-' || g || '@example.com', now() - interval '3 years', now() - interval '3 years'
         from generate_series(1, $2::int) g`,
      [storeIds, customers],
    );
    const perMonth = Math.ceil(total / months);
    for (let m = months; m >= 1; m--) {
      const started = performance.now();
      const { rows } = await client.query<{ lo: Date; hi: Date; part: string }>(
        `select lo, lo + interval '1 month' as hi, 'custom_event_y' || to_char(lo at time zone 'UTC', 'YYYY"m"MM') as part
           from (select date_trunc('month', now() at time zone 'UTC') at time zone 'UTC' - make_interval(months => $1) as lo) x`,
        [m],
      );
      const { lo, hi, part } = rows[0]!;
      const name = client.escapeIdentifier(part);
      await client.query(`create table events.${name} (like events.custom_event including defaults)`);
      await client.query(
        `insert into events.${name} (id, store_id, customer_id, event_name, event_timestamp, value, value_currency, data, received_at, created_at)
         select 'evt_history_' || $3::int || '_' || g, ($4::text[])[1 + c % cardinality($4::text[])], 'cus_history_' || c,
                (array['Placed Order', 'Viewed Product', 'Started Checkout', 'Opened Email'])[1 + g % 4], t, (g % 200)::numeric, 'USD',
                jsonb_build_object('sku', 'SKU-' || (g % 500), 'channel', (array['web', 'pos', 'app'])[1 + g % 3]), t, t
           from generate_series(1, $5::int) g,
                lateral (select 1 + (g::bigint * 7919) % $6::int as c, $1::timestamptz + (($2::timestamptz - $1::timestamptz) * (g::float8 / ($5::int + 1))) as t) x`,
        [lo, hi, m, storeIds, perMonth, customers],
      );
      // The range as a constraint first: attaching then skips the scan that would prove it.
      await client.query(`alter table events.${name} add constraint ${client.escapeIdentifier(`${part}_range`)} check (received_at >= '${lo.toISOString()}' and received_at < '${hi.toISOString()}')`);
      await client.query(`alter table events.custom_event attach partition events.${name} for values from ('${lo.toISOString()}') to ('${hi.toISOString()}')`);
      log(`  history: ${part} with ${perMonth} events (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    }
    await client.query('analyze events.custom_event');
    await client.query('analyze events.customer');
    log(`  history: ${perMonth * months} events over ${months} monthly partitions and ${customers} customers loaded in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  } finally {
    await client.end();
  }
}
