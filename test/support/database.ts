import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { withDatabase } from '../../platform/db/embedded-postgres.js';

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

/**
 * The outbox as the events' envelopes (`data`, as consumers receive them), for a `from` clause:
 * `select data from ${OUTBOX_EVENTS} where data->>'subjectId' = $1 order by sequence`.
 */
export const OUTBOX_EVENTS = `(select sequence, jsonb_build_object('id', id, 'type', type, 'version', version, 'storeId', store_id, 'subjectType', subject_type,
    'subjectId', subject_id, 'occurredAt', to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'sequence', sequence, 'data', data::jsonb) as data
  from platform.outbox_event) outbox`;
