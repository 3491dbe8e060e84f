import { sql, type EntityManager, type Orm } from '../db/orm.js';
import { PRIVACY_BATCH, retentionGroups, type RetentionDays, type RetentionPolicy } from './participants.js';

/** Rows a `with d as (<statement> returning 1)` removed or changed. */
export async function affected(em: EntityManager, statement: string, params: readonly unknown[]): Promise<number> {
  const [row] = await sql<{ n: number }>(em, `with d as (${statement} returning 1) select count(*)::int as n from d`, params);
  return row!.n;
}

/**
 * Repeats `batch` (one short transaction each, so no lock is held long) until it reports fewer
 * rows than a full batch; returns the sum of what each reported.
 */
export async function inBatches(orm: Orm, batch: (em: EntityManager, limit: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await orm.em.fork().transactional((em) => batch(em, PRIVACY_BATCH));
    total += n;
    if (n < PRIVACY_BATCH) return total;
  }
}

/**
 * The stores a kind of record is kept for a number of days by, as SQL conditions on `column`
 * ($1 and $2 are the scope's parameters): each store with its own setting, then every other store
 * with the default (none when the default keeps them until erased).
 */
export function retentionScopes(policy: RetentionPolicy, kind: keyof RetentionDays, storeColumn: string): { where: string; params: unknown[] }[] {
  const groups = retentionGroups(policy, kind);
  return [
    ...groups.stores.map((s) => ({ where: `${storeColumn} = $1`, params: [s.storeId, s.days] })),
    ...(groups.defaultDays === null ? [] : [{ where: `not (${storeColumn} = any($1::text[]))`, params: [groups.except, groups.defaultDays] }]),
  ];
}

/** How long one of an erasure's scans of a whole store may run: far beyond the pools' statement timeout, still bounded. */
const STORE_SCAN_TIMEOUT_MS = 15 * 60_000;

/**
 * Reads what an erasure looks for across a whole store (the rows that mention the person): a plain
 * read, so it locks nothing, but on a store with millions of rows it may outlast the pools'
 * statement timeout (DB_STATEMENT_TIMEOUT_MS, set for requests), and the erasure could then never
 * finish. It runs in a transaction of its own with a longer one. `within` runs it in `em`'s.
 */
export async function scanStore<R>(orm: Orm, text: string, params: readonly unknown[], within?: EntityManager): Promise<R[]> {
  const scan = async (em: EntityManager) => {
    await sql(em, `set local statement_timeout = ${STORE_SCAN_TIMEOUT_MS}`);
    return sql<R>(em, text, params);
  };
  return within ? scan(within) : orm.em.fork().transactional(scan);
}

/**
 * Rewrites rows that mention the person (`select`, found with the identifier pattern), a batch per
 * transaction: `update` takes the fixed rows as a JSON array in $1; `counted` records each batch
 * in the erasure's ledger within the same transaction.
 */
export async function scrubRows<R>(
  orm: Orm,
  select: { text: string; params: readonly unknown[] },
  fix: (row: R) => R,
  update: string,
  counted: (em: EntityManager, n: number) => Promise<void>,
): Promise<void> {
  const rows = await scanStore<R>(orm, select.text, select.params);
  for (let i = 0; i < rows.length; i += PRIVACY_BATCH) {
    const chunk = rows.slice(i, i + PRIVACY_BATCH).map(fix);
    await orm.em.fork().transactional(async (em) => {
      await sql(em, update, [JSON.stringify(chunk)]);
      await counted(em, chunk.length);
    });
  }
}
