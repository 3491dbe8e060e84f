import { sql, type Orm } from '../../platform/db/orm.js';

/**
 * How many appended rows one compaction statement takes (with the rest of their hours): a bound
 * on its work, so that after a bulk load it stays far inside the pools' statement timeout
 * (DB_STATEMENT_TIMEOUT_MS) and folds the backlog in many short transactions.
 */
const ROWS_PER_PASS = 50_000;

const RETURN_KEYS = 'store_id, slot, currency, status, type, dim, key';
const RETURN_MEASURES = ['returns', 'items', 'refund', 'store_credit', 'exchange'];
const ORDER_KEYS = 'store_id, slot, sku';

/**
 * One compaction statement: the (store, hour) pairs of the first `$1` appended rows (in the
 * order of the dirty index, so every pair but the last is taken whole) lose all their rows, which
 * are written back as one row per key (keys whose sums are all zero vanish). Only what this
 * statement deleted is written back, so deltas committed meanwhile stay as they are, and a read
 * sums the same totals before, during and after.
 */
function compaction(table: string, keys: string, measures: string[]): string {
  const sums = measures.map((m) => `sum(${m})`);
  return `with taken as (select store_id, slot from ${table} where not compacted order by store_id, slot limit $1),
    dirty as (select distinct store_id, slot from taken),
    gone as (delete from ${table} t using dirty d where t.store_id = d.store_id and t.slot = d.slot returning t.*),
    kept as (insert into ${table} (${keys}, ${measures.join(', ')}, compacted)
      select ${keys}, ${sums.join(', ')}, true from gone group by ${keys} having ${sums.map((s) => `${s} <> 0`).join(' or ')} returning 1)
    select (select count(*) from taken)::int as taken, (select count(*) from dirty)::int as slots`;
}

const COMPACT_RETURNS = compaction('return_stat', RETURN_KEYS, RETURN_MEASURES);
const COMPACT_ORDERS = compaction('order_stat', ORDER_KEYS, ['units']);
// The returns by their orders' hours (Migration20270120000200_return_order_stat): the same keys and measures.
const COMPACT_RETURNS_BY_ORDER = compaction('return_order_stat', RETURN_KEYS, RETURN_MEASURES);

/**
 * Folds the rollups' appended deltas (Migration20261220000100_return_stats) until none are
 * left, one compactor at a time (another one running skips), one short transaction per pass.
 * Returns how many (store, hour) pairs it folded.
 */
export async function compactReturnStats(orm: Orm, rowsPerPass = ROWS_PER_PASS): Promise<number> {
  let folded = 0;
  for (;;) {
    const pass = await orm.em.fork().transactional(async (em) => {
      const [lock] = await sql<{ locked: boolean }>(em, 'select pg_try_advisory_xact_lock(hashtext($1)) as locked', ['returns:stat-compaction']);
      if (!lock?.locked) return { taken: 0, slots: 0 };
      const [returns] = await sql<{ taken: number; slots: number }>(em, COMPACT_RETURNS, [rowsPerPass]);
      const [orders] = await sql<{ taken: number; slots: number }>(em, COMPACT_ORDERS, [rowsPerPass]);
      const [byOrder] = await sql<{ taken: number; slots: number }>(em, COMPACT_RETURNS_BY_ORDER, [rowsPerPass]);
      return { taken: Math.max(returns!.taken, orders!.taken, byOrder!.taken), slots: returns!.slots + orders!.slots + byOrder!.slots };
    });
    folded += pass.slots;
    if (pass.taken < rowsPerPass) return folded;
  }
}
