import { expect } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from './app.js';
import { query } from './database.js';
import { eventually } from './eventually.js';

/** POST /v2.2/stores/{storeId}/events (or /bulk) as the account. */
export function postEvent(app: TestApp, account: TestAccount, body: unknown, options: { path?: string; token?: string; storeId?: string; raw?: string } = {}) {
  return app.request(`/v2.2/stores/${options.storeId ?? account.storeId}/events${options.path ?? ''}`, {
    method: 'POST',
    token: options.token ?? account.apiSecret,
    headers: { 'content-type': 'application/json' },
    body: options.raw ?? JSON.stringify(body),
  });
}

/** Waits until no custom event job is waiting, running or due for a retry. */
export async function drained(databaseUrl: string): Promise<void> {
  await eventually(async () => {
    const [row] = await query<{ n: number }>(databaseUrl, `select count(*)::int as n from pgboss.job where name = 'custom-events' and state in ('created', 'retry', 'active')`);
    return row!.n === 0 ? true : undefined;
  }, 'the custom event queue to drain');
}

/**
 * A store's accepted events: still queued, or stored. One statement, so one snapshot: a job leaves
 * its queue in the transaction that stores its event, so each accepted event counts exactly once.
 */
export async function acceptedEvents(databaseUrl: string, storeId: string): Promise<number> {
  const [row] = await query<{ n: number }>(
    databaseUrl,
    `select (select count(*) from pgboss.job where name = 'custom-events' and data->>'storeId' = $1)::int
          + (select count(*) from events.custom_event where store_id = $1)::int as n`,
    [storeId],
  );
  return row!.n;
}

export async function storedEvents(databaseUrl: string, storeId: string) {
  return query<{ id: string; customer_id: string; event_name: string; data: Record<string, unknown>; extra: unknown; unique_id: string | null; event_timestamp: Date }>(
    databaseUrl,
    'select * from events.custom_event where store_id = $1 order by event_timestamp, id',
    [storeId],
  );
}

export async function customersOf(databaseUrl: string, storeId: string) {
  return query<{ id: string; email: string | null; phone_number: string | null; first_name: string | null; last_name: string | null; location: Record<string, unknown> | null; custom_fields: Record<string, unknown> | null }>(
    databaseUrl,
    'select * from events.customer where store_id = $1 order by created_at, id',
    [storeId],
  );
}

/** Posts one event, expects 202. */
export async function accept(app: TestApp, account: TestAccount, body: unknown): Promise<void> {
  const res = await postEvent(app, account, body);
  expect(res.status, await res.clone().text()).toBe(202);
}

/** Another process of the service (role `all`) on the database of `app`, as a second facade or worker would run. */
export function startAnotherProcess(app: TestApp, env: Record<string, string> = {}): Promise<TestApp> {
  return startTestApp(env, 'all', { databaseUrl: app.databaseUrl });
}
