import { sql, type Orm } from '../../platform/db/orm.js';

/** How many (store, hour) pairs one compaction statement folds. */
const SLOTS_PER_PASS = 2000;

const RETURN_KEYS = 'store_id, slot, currency, status, type, dim, key';
const RETURN_MEASURES = ['returns', 'items', 'refund', 'store_credit', 'exchange'];
const ORDER_KEYS = 'store_id, slot, sku';

/**
 * One compaction statement: the rows of up to SLOTS_PER_PASS (store, hour) pairs that have
 * appended deltas are deleted and written back as one row per key (keys whose sums are all zero
 * vanish). Only what this statement deleted is written back, so deltas committed meanwhile stay
 * as they are, and a read sums the same totals before, during and after.
 */
function compaction(table: string, keys: string, measures: string[]): string {
  const sums = measures.map((m) => `sum(${m})`);
  return `with dirty as (select distinct store_id, slot from ${table} where not compacted limit ${SLOTS_PER_PASS}),
    gone as (delete from ${table} t using dirty d where t.store_id = d.store_id and t.slot = d.slot returning t.*),
    kept as (insert into ${table} (${keys}, ${measures.join(', ')}, compacted)
      select ${keys}, ${sums.join(', ')}, true from gone group by ${keys} having ${sums.map((s) => `${s} <> 0`).join(' or ')} returning 1)
    select (select count(*) from dirty)::int as slots, (select count(*) from kept)::int as kept`;
}

const COMPACT_RETURNS = compaction('return_stat', RETURN_KEYS, RETURN_MEASURES);
const COMPACT_ORDERS = compaction('order_stat', ORDER_KEYS, ['units']);

/**
 * Folds the rollups' appended deltas (Migration20261220000100_return_stats) until none are
 * left, one compactor at a time (another one running skips). Returns how many hours it folded.
 */
export async function compactReturnStats(orm: Orm): Promise<number> {
  let folded = 0;
  for (;;) {
    const slots = await orm.em.fork().transactional(async (em) => {
      const [lock] = await sql<{ locked: boolean }>(em, 'select pg_try_advisory_xact_lock(hashtext($1)) as locked', ['returns:stat-compaction']);
      if (!lock?.locked) return 0;
      const [returns] = await sql<{ slots: number }>(em, COMPACT_RETURNS);
      const [orders] = await sql<{ slots: number }>(em, COMPACT_ORDERS);
      return Math.max(returns?.slots ?? 0, orders?.slots ?? 0);
    });
    folded += slots;
    if (slots < SLOTS_PER_PASS) return folded;
  }
}
