import { sql, type EntityManager } from './orm.js';

/** A column filled from the rows: its name, its PostgreSQL type, and each row's value. */
export interface RowColumn<Row> {
  name: string;
  /** The parameter is a `type[]` array. */
  type: string;
  value: (row: Row) => unknown;
  /** What is stored, given the row's value as SQL (`v => \`coalesce(${v}, ...)\``); the value itself by default. */
  select?: (value: string) => string;
}

/** A column given the same SQL in every row (`now()`, a literal): no parameter. */
interface SqlColumn {
  name: string;
  sql: string;
}

export type BulkColumn<Row> = RowColumn<Row> | SqlColumn;

export interface BulkInsertOptions {
  /** Inserts in the rows' order (`with ordinality`), for what must follow it (a sequence's values). */
  ordered?: boolean;
  /** What follows the select: `on conflict ...`, `returning ...`. */
  tail?: string;
}

const ORDINAL = 'bulk_ordinal';

/**
 * A multi-row insert with one array parameter per column, `insert into t (a, b) select ... from
 * unnest($1::text[], $2::int[])`: one statement, and one plan whatever the number of rows. Each
 * column is named once, where the insert is declared; the SQL text is built then, once, not per call.
 */
export class BulkInsert<Row> {
  readonly text: string;
  private readonly fromRows: RowColumn<Row>[];

  constructor(table: string, columns: readonly BulkColumn<Row>[], options: BulkInsertOptions = {}) {
    this.fromRows = columns.filter((c): c is RowColumn<Row> => 'value' in c);
    const arrays = this.fromRows.map((c, i) => `$${i + 1}::${c.type}[]`).join(', ');
    const names = [...this.fromRows.map((c) => c.name), ...(options.ordered ? [ORDINAL] : [])].join(', ');
    const selected = columns.map((c) => ('sql' in c ? c.sql : (c.select?.(`u.${c.name}`) ?? `u.${c.name}`))).join(', ');
    this.text = [
      `insert into ${table} (${columns.map((c) => c.name).join(', ')})`,
      `select ${selected} from unnest(${arrays})${options.ordered ? ' with ordinality' : ''} as u(${names})`,
      ...(options.ordered ? [`order by u.${ORDINAL}`] : []),
      ...(options.tail ? [options.tail] : []),
    ].join('\n');
  }

  /** The parameters for these rows: one array per row column. */
  params(rows: readonly Row[]): unknown[][] {
    return this.fromRows.map((c) => rows.map(c.value));
  }

  /** Inserts the rows (none: no statement); what `returning` returns. */
  async run<T = Record<string, unknown>>(em: EntityManager, rows: readonly Row[]): Promise<T[]> {
    return rows.length ? sql<T>(em, this.text, this.params(rows)) : [];
  }
}
