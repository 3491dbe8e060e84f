import { expect } from 'vitest';
import { startCustomEventWorkers } from '../../subgraphs/events/custom-event.job.js';
import { eventsSubgraph } from '../../subgraphs/events/index.js';
import { startTestApp, type TestAccount, type TestApp } from './app.js';
import { query } from './database.js';
import { eventually, type PollOptions } from './eventually.js';

/** POST /v2.2/stores/{storeId}/events (or /bulk) as the account. */
export function postEvent(app: TestApp, account: TestAccount, body: unknown, options: { path?: string; token?: string; storeId?: string; raw?: string } = {}) {
  return app.request(`/v2.2/stores/${options.storeId ?? account.storeId}/events${options.path ?? ''}`, {
    method: 'POST',
    token: options.token ?? account.apiSecret,
    headers: { 'content-type': 'application/json' },
    body: options.raw ?? JSON.stringify(body),
  });
}

/** Waits until no accepted custom event waits in the inbox (due now or for a retry). */
export async function drained(databaseUrl: string, options?: PollOptions): Promise<void> {
  await eventually(
    async () => {
      const [row] = await query<{ n: number }>(databaseUrl, 'select count(*)::int as n from events.event_inbox');
      return row!.n === 0 ? true : undefined;
    },
    'the custom event inbox to drain',
    options,
  );
}

/**
 * A store's accepted events: still in the inbox, or stored. One statement, so one snapshot: an event
 * leaves the inbox in the transaction that stores it, so each accepted event counts exactly once.
 */
export async function acceptedEvents(databaseUrl: string, storeId: string): Promise<number> {
  const [row] = await query<{ n: number }>(
    databaseUrl,
    `select (select count(*) from events.event_inbox where store_id = $1)::int
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

const ORDERED_CUSTOMERS = ['a', 'b', 'c'];

/**
 * Event k of the acceptance-order scenario: three customers in turn, each event setting its
 * customer's name and a custom field, and events k and k + 1 (k even) sharing a uniqueId.
 */
export function orderedEvent(k: number) {
  return {
    eventName: 'Step',
    uniqueId: `u${Math.floor(k / 2)}`,
    customer: { email: `${ORDERED_CUSTOMERS[k % 3]}@example.com`, firstName: `name ${k}`, customFields: { step: k } },
    // k + 1: a top-level 0 in data is dropped.
    data: { k: k + 1 },
  };
}

/** What acceptance order decides for the scenario's first n events in a store: the last field values win, the first uniqueId wins. */
export async function expectAcceptanceOrder(databaseUrl: string, storeId: string, n: number): Promise<void> {
  const profiles = await customersOf(databaseUrl, storeId);
  expect(profiles).toHaveLength(3);
  for (const [i, name] of ORDERED_CUSTOMERS.entries()) {
    // The customer's last event that was kept (odd k are dropped duplicates).
    const last = Math.max(...Array.from({ length: n }, (_, k) => k).filter((k) => k % 3 === i && k % 2 === 0));
    expect(profiles.find((p) => p.email === `${name}@example.com`)).toMatchObject({ first_name: `name ${last}`, custom_fields: { step: last } });
  }
  // Of each pair sharing a uniqueId, the first accepted (even k) was kept.
  const stored = await storedEvents(databaseUrl, storeId);
  expect(stored.map((e) => Number(e.data.k) - 1).sort((x, y) => x - y)).toEqual(Array.from({ length: n / 2 }, (_, i) => 2 * i));
}

/** Starts the custom event workers again after `stopCustomEventWorkers` (the process's own services, its configured lanes). */
export async function resumeEventWorkers(app: TestApp): Promise<void> {
  const { runtime } = app.service;
  const { events, inbox } = runtime.servicesOf(eventsSubgraph)!;
  await startCustomEventWorkers(runtime.deps.events!, events, inbox, { batchSize: app.config.eventsBatchSize, concurrency: app.config.eventsWorkerConcurrency });
}
