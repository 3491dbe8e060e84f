import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from './db/orm.js';
import { ulid } from './ids.js';
import { QUEUE_SCHEMA, type PgBoss } from './queue.js';

/**
 * Domain events, written in the same transaction as the change they describe
 * (transactional outbox on pg-boss): a change without its event, or an event
 * without its change, cannot happen. Consumers subscribe a queue of their own
 * to the event types they need (pg-boss pub/sub), so each gets every event.
 */
export const OUTBOX_EVENT_TYPES = [
  'return.created',
  'return.updated',
  'inbound_shipment.created',
  'inbound_shipment.updated',
  'inventory_item.created',
  'inventory_item.updated',
  'custom_event.created',
] as const;
export type OutboxEventType = (typeof OUTBOX_EVENT_TYPES)[number];

export interface OutboxEvent<T = Record<string, unknown>> {
  /** `evt_...`, unique per event: consumers deduplicate on it. */
  id: string;
  type: OutboxEventType;
  storeId: string;
  /** `return`, `inbound_shipment`, `inventory_item`, `custom_event`. */
  subjectType: string;
  subjectId: string;
  /** When the change committed (RFC 3339). */
  occurredAt: string;
  data: T;
}

/** The queue that keeps every event for webhook delivery (subscribed from the first start, so none is missed). */
export const WEBHOOK_OUTBOX_QUEUE = 'webhooks-outbox';

/** A pg-boss `db` that runs on the EntityManager's transaction. */
function transactionDb(em: EntityManager) {
  return { executeSql: async (text: string, values?: unknown[]) => ({ rows: await sql(em, text, values ?? []) }) };
}

/**
 * Publishes an event inside the caller's transaction. Must be called inside
 * `em.transactional(...)`: the job rows commit or roll back with the change.
 */
export async function publishInTransaction<T extends Record<string, unknown>>(
  boss: PgBoss,
  em: EntityManager,
  event: Omit<OutboxEvent<T>, 'id' | 'occurredAt'> & { occurredAt?: string },
): Promise<OutboxEvent<T>> {
  if (!em.isInTransaction()) throw new Error(`outbox event ${event.type} published outside a transaction`);
  const full: OutboxEvent<T> = { id: `evt_${ulid()}`, occurredAt: new Date().toISOString(), ...event };
  await boss.publish(full.type, full as unknown as object, { db: transactionDb(em) });
  return full;
}

/**
 * Publishes several events of one type inside the caller's transaction, with
 * one insert per subscribed queue (a batch job publishing per event would
 * otherwise pay a lookup and an insert each time). Same guarantees as
 * `publishInTransaction`.
 */
export async function publishManyInTransaction<T extends Record<string, unknown>>(
  boss: PgBoss,
  em: EntityManager,
  type: OutboxEventType,
  events: (Omit<OutboxEvent<T>, 'id' | 'occurredAt' | 'type'> & { occurredAt?: string })[],
): Promise<OutboxEvent<T>[]> {
  if (!em.isInTransaction()) throw new Error(`outbox event ${type} published outside a transaction`);
  if (!events.length) return [];
  const occurredAt = new Date().toISOString();
  const full = events.map((event): OutboxEvent<T> => ({ id: `evt_${ulid()}`, occurredAt, type, ...event }));
  const queues = await sql<{ name: string }>(em, `select name from ${QUEUE_SCHEMA}.subscription where event = $1`, [type]);
  for (const { name } of queues) await boss.insert(name, full.map((data) => ({ data })), { db: transactionDb(em) });
  return full;
}

/** Creates a consumer queue and subscribes it to event types. Idempotent; safe in every process. */
export async function subscribeQueue(boss: PgBoss, queue: string, types: readonly OutboxEventType[], options: Parameters<PgBoss['createQueue']>[1] = {}): Promise<void> {
  if (!(await boss.getQueue(queue))) await boss.createQueue(queue, options);
  for (const type of types) await boss.subscribe(type, queue);
}

/** Platform-level subscriptions: every event is kept for the webhooks worker from day one. */
export async function createOutboxQueues(boss: PgBoss): Promise<void> {
  await subscribeQueue(boss, WEBHOOK_OUTBOX_QUEUE, OUTBOX_EVENT_TYPES);
}
