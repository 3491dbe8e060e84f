import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../platform/db/orm.js';
import { sortAtSql, toPage, type Page, type PageRequest } from '../../platform/pagination.js';

/** Builds a parameterised WHERE clause: `p(value)` adds a parameter and returns its placeholder. */
export class Conditions {
  readonly params: unknown[] = [];
  readonly clauses: string[] = [];

  p(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  and(clause: string): this {
    this.clauses.push(clause);
    return this;
  }

  get where(): string {
    return this.clauses.join(' and ');
  }
}

export interface KeysetRow {
  id: string;
  sortAt: string;
}

/**
 * One keyset page of ids, newest `sortColumn` first with `idColumn` breaking
 * ties. The cursor holds the last row's timestamp as microsecond-exact text
 * and its id, so the next page starts strictly after it, at the cost of the
 * first page whatever the depth (the table's index must lead with the
 * equality filters, then `sortColumn desc, idColumn desc`).
 */
export async function keysetPage<T extends KeysetRow>(
  em: EntityManager,
  options: { from: string; select?: string; sortColumn: string; idColumn: string; conditions: Conditions; page: PageRequest },
): Promise<Page<T>> {
  const { conditions: c, page, sortColumn, idColumn } = options;
  if (page.after) c.and(`(${sortColumn}, ${idColumn}) < (${c.p(page.after[0])}::timestamptz, ${c.p(page.after[1])})`);
  const limit = c.p(page.first + 1);
  const rows = await sql<T>(
    em,
    `select ${idColumn} as id, ${sortAtSql(sortColumn)}${options.select ? `, ${options.select}` : ''}
       from ${options.from} where ${c.where}
      order by ${sortColumn} desc, ${idColumn} desc limit ${limit}`,
    c.params,
  );
  return toPage(rows, page, (row) => [row.sortAt, row.id]);
}
