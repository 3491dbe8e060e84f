import { sql, type EntityManager } from './orm.js';
import { toPage, type Page, type PageRequest } from '../api/pagination.js';

/**
 * Builds a parameterised WHERE clause: `p(value)` adds a parameter and returns
 * its placeholder, `and(clause)` adds a condition. Every list and every
 * filter goes through one of these, so no value is ever spliced into SQL.
 */
export class Conditions {
  readonly clauses: string[] = [];

  /** `params` already taken by the caller ($1, $2, ...), e.g. a compiled segment's. */
  constructor(readonly params: unknown[] = []) {}

  p(value: unknown, cast?: string): string {
    this.params.push(value);
    return `$${this.params.length}${cast ? `::${cast}` : ''}`;
  }

  and(clause: string): this {
    this.clauses.push(clause);
    return this;
  }

  /** Adds `clause(placeholder)` only when the filter was given. */
  when(value: unknown, clause: (placeholder: string) => string, cast?: string): this {
    if (value !== undefined && value !== null) this.clauses.push(clause(this.p(value, cast)));
    return this;
  }

  /** The same conditions, to extend separately. */
  clone(): Conditions {
    const copy = new Conditions([...this.params]);
    copy.clauses.push(...this.clauses);
    return copy;
  }

  get where(): string {
    return this.clauses.length ? this.clauses.join(' and ') : 'true';
  }
}

/**
 * The select-list item that carries a timestamp sort key as `"sortAt"`, kept to
 * the microsecond (a `Date` would round to milliseconds and a cursor could land
 * between two rows).
 */
export function sortAtSql(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "sortAt"`;
}

export interface KeysetQuery {
  /** The select list; it must name the row's id `id`. */
  columns: string;
  /** The FROM clause, joins included. */
  from: string;
  where: Conditions;
  /** The timestamp the list is sorted on, newest first, and the id column that breaks ties. */
  sortColumn: string;
  idColumn: string;
  page: PageRequest;
}

/**
 * One keyset page, the only way lists are read: the rows strictly after the
 * cursor's (timestamp, id), newest first, `first + 1` of them so the extra row
 * tells that another page exists. A deep page costs what the first does, as
 * long as an index leads with the list's equality filters and then
 * `(sortColumn desc, idColumn desc)`; a row inserted while a client pages
 * lands before its position and skips or repeats nothing. Paging backwards
 * (`before`) reads the same index the other way: the rows just newer than the
 * cursor, oldest first, handed back in the list's order.
 */
export async function keysetPage<T extends { id: string }>(em: EntityManager, query: KeysetQuery): Promise<Page<T>> {
  const { page, sortColumn, idColumn } = query;
  const c = query.where.clone();
  const backwards = page.before !== undefined;
  if (page.after) c.and(`(${sortColumn}, ${idColumn}) < (${c.p(page.after[0], 'timestamptz')}, ${c.p(page.after[1])})`);
  if (page.before) c.and(`(${sortColumn}, ${idColumn}) > (${c.p(page.before[0], 'timestamptz')}, ${c.p(page.before[1])})`);
  const limit = c.p(page.first + 1);
  const direction = backwards ? 'asc' : 'desc';
  const [rows, totalCount] = await Promise.all([
    sql<T & { sortAt: string }>(
      em,
      `select ${query.columns}, ${sortAtSql(sortColumn)} from ${query.from} where ${c.where}
        order by ${sortColumn} ${direction}, ${idColumn} ${direction} limit ${limit}`,
      c.params,
    ),
    page.count ? countRows(em, query.from, query.where) : undefined,
  ]);
  if (backwards) rows.reverse();
  return { ...toPage(rows, page, (row) => [row.sortAt, row.id]), totalCount };
}

/** How many rows a list's filters match, whatever the page (a connection's `totalCount`). */
async function countRows(em: EntityManager, from: string, where: Conditions): Promise<number> {
  const [row] = await sql<{ n: number }>(em, `select count(*)::int as n from ${from} where ${where.where}`, where.params);
  return row!.n;
}
