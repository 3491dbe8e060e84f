import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { withDatabase } from '../../platform/db/embedded-postgres.js';
import { findJobRows, type JobFilter, type JobRow } from '../../platform/jobs/queue-tables.js';
import { eventually } from './eventually.js';

/** A new, empty database on the run's server; every test file gets its own. */
export async function createTestDatabase(): Promise<string> {
  const serverUrl = inject('databaseUrl');
  const name = `test_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  return withDatabase(serverUrl, name);
}

/** Runs one query on a database (for assertions on stored state). */
export async function query<T = Record<string, unknown>>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** pg-boss's jobs matching a filter (through the one module that reads its tables, platform/jobs/queue-tables.ts). */
export function jobRows(url: string, filter: JobFilter = {}): Promise<JobRow[]> {
  return findJobRows({ executeSql: async (text, values) => ({ rows: await query(url, text, values ?? []) }) }, filter);
}

const ENVELOPE = `jsonb_build_object('id', e.id, 'type', e.type, 'version', e.version, 'storeId', e.store_id, 'subjectType', e.subject_type, 'subjectId', e.subject_id,
  'occurredAt', to_char(e.occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'sequence', e.sequence, 'data', e.data::jsonb)`;

/**
 * The outbox as the events' envelopes (`data`, as consumers receive them), for a `from` clause:
 * `select data from ${OUTBOX_EVENTS} where data->>'subjectId' = $1 order by sequence`.
 */
export const OUTBOX_EVENTS = `(select e.sequence, ${ENVELOPE} as data from platform.outbox_event e) outbox`;

/** Whether the consumer `c` has read the event `e` (its position's snapshot, or the window it is part way through). */
export const CONSUMED = `(pg_visible_in_snapshot(e.tx, c.snapshot) or (c.target is not null and pg_visible_in_snapshot(e.tx, c.target) and e.sequence <= c.after))`;

/**
 * The events matching `where` (on the outbox row `e`, parameters from $2), in sequence order, once
 * there are at least `atLeast` and the consumer has read them all.
 */
export async function consumedEvents<T = { id: string; type: string; subjectId: string; storeId: string; sequence: number; data: Record<string, unknown> }>(
  url: string,
  consumer: string,
  where: string,
  params: unknown[] = [],
  atLeast = 1,
): Promise<T[]> {
  return eventually(async () => {
    const rows = await query<{ data: T; consumed: boolean }>(
      url,
      `select ${ENVELOPE} as data, ${CONSUMED} as consumed from platform.outbox_event e, platform.outbox_consumer c where c.name = $1 and (${where}) order by e.sequence`,
      [consumer, ...params],
    );
    return rows.length >= atLeast && rows.every((r) => r.consumed) ? rows.map((r) => r.data) : undefined;
  }, `${consumer} to read ${atLeast} events where ${where}`);
}
