import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type DbModule } from '../db/orm.js';
import { ulid } from '../ids.js';
import { Migration20261210000000_outbox_sequence } from './migrations/Migration20261210000000_outbox_sequence.js';
import { Migration20261228000000_outbox_events } from './migrations/Migration20261228000000_outbox_events.js';
import { Migration20261229000000_outbox_event_trace } from './migrations/Migration20261229000000_outbox_event_trace.js';
import type { PgBoss } from './queue.js';
import { currentTrace, withTrace, type TraceCarrier } from '../observability/tracing.js';
import type { Static, TSchema } from '../validation/index.js';

/**
 * Domain events, written in the same transaction as the change they describe
 * (transactional outbox): a change without its event, or an event without its
 * change, cannot happen. Each event is one row of `platform.outbox_event`;
 * every consumer reads the rows from its own position, in commit order
 * (platform/jobs/outbox-consumers.ts), so an event costs one row whatever the
 * number of consumers.
 *
 * Each event type is a contract (`outboxContract`) owned by the subgraph that
 * emits it: its name, version, subject and payload schema (TypeBox), used by
 * the producer and by every consumer. This module knows no domain event.
 */
export interface OutboxEvent<Type extends string = string, Data = unknown> {
  /** `evt_...`, unique per event: consumers deduplicate on it. */
  id: string;
  type: Type;
  /** The payload's version: a consumer reads the versions it knows and leaves others alone. */
  version: number;
  storeId: string;
  /** `return`, `inbound_shipment`, `inventory_item`, `custom_event`. */
  subjectType: string;
  subjectId: string;
  /** When the change committed (RFC 3339). */
  occurredAt: string;
  /**
   * Position in the commit order of the changes of one subject (`platform.outbox_sequence`, drawn
   * under the subject's row lock): consumers read a window of commits in this order, and webhook
   * lanes send by it. Absent on events queued before it existed.
   */
  sequence?: number;
  /**
   * The trace of the change (W3C `traceparent`), when tracing is on: what consumers do with the
   * event links to it or continues it (platform/observability/tracing.ts).
   */
  trace?: TraceCarrier;
  data: Data;
}

export interface OutboxContract<Type extends string = string, Schema extends TSchema = TSchema> {
  readonly type: Type;
  readonly version: number;
  readonly subjectType: string;
  /**
   * The payload (`data`) as published: its TypeScript type is `Static<Schema>`, so the code that
   * builds it must produce exactly this; the API reference describes webhook payloads with it.
   */
  readonly schema: Schema;
}

/** Declares an event type: `outboxContract('return.updated', 'return', 1, ReturnEventDataSchema)`. */
export function outboxContract<const Type extends string, Schema extends TSchema>(type: Type, subjectType: string, version: number, schema: Schema): OutboxContract<Type, Schema> {
  return { type, version, subjectType, schema };
}

/** The payload type of a contract. */
export type DataOf<C> = C extends OutboxContract<string, infer S> ? Static<S> : never;
type TypeOf<C> = C extends OutboxContract<infer T> ? T : never;

/** Whether an event received from a queue is one of this contract (type and version). */
export function isEventOf<C extends OutboxContract>(contract: C, event: OutboxEvent): event is OutboxEvent<TypeOf<C>, DataOf<C>> {
  return event.type === contract.type && event.version === contract.version;
}

/** The commit-order sequence, the events and the consumers' positions, in the platform schema (platform/schema.ts). */
export const OUTBOX_MIGRATIONS: DbModule['migrations'] = [
  { name: 'Migration20261210000000_outbox_sequence', class: Migration20261210000000_outbox_sequence },
  { name: 'Migration20261228000000_outbox_events', class: Migration20261228000000_outbox_events },
  { name: 'Migration20261229000000_outbox_event_trace', class: Migration20261229000000_outbox_event_trace },
];

export interface Publication<Data> {
  storeId: string;
  subjectId: string;
  /** The trace the change belongs to, when not the active one (a batch applying queued requests). */
  trace?: TraceCarrier;
  data: Data;
}

/** A pg-boss `db` that runs on the EntityManager's transaction (pg-boss calls made part of it). */
export function transactionDb(em: EntityManager) {
  return { executeSql: async (text: string, values?: unknown[]) => ({ rows: await sql(em, text, values ?? []) }) };
}

/**
 * One statement per publication: the events as one JSON document (a payload is nested JSON there,
 * not a string to escape inside an array literal), numbered in the document's order, so a batch's
 * events of one subject keep their order. `json_to_recordset` splits the document in one pass (a
 * `->>` per field re-parsed each element, a quarter more per row).
 */
const INSERT_EVENTS = `insert into platform.outbox_event (sequence, id, type, version, store_id, subject_type, subject_id, occurred_at, data, trace)
  select nextval('platform.outbox_sequence'), r.id, $2::text, $3::int, r."storeId", $4::text, r."subjectId", $5::timestamptz, r.data, r.trace
    from rows from (json_to_recordset($1::json) as (id text, "storeId" text, "subjectId" text, data json, trace json)) with ordinality as r(id, "storeId", "subjectId", data, trace, n)
   order by r.n`;

/**
 * Publishes events of one contract inside the caller's transaction: one
 * multi-row insert into the outbox, whatever the number of consumers. Must run
 * inside `em.transactional(...)`, after the subjects' row locks are taken (the
 * sequence then follows each subject's commit order): the rows commit or roll
 * back with the change.
 */
export async function publish<C extends OutboxContract>(em: EntityManager, contract: C, events: Publication<DataOf<C>>[]): Promise<void> {
  if (!em.isInTransaction()) throw new Error(`outbox event ${contract.type} published outside a transaction`);
  if (!events.length) return;
  // The trace is stored only when one is active (a sampled change): consumers link to it or continue it.
  const active = currentTrace();
  const rows = events.map((e) => ({ id: `evt_${ulid()}`, storeId: e.storeId, subjectId: e.subjectId, data: e.data, trace: e.trace ?? active }));
  await sql(em, INSERT_EVENTS, [JSON.stringify(rows), contract.type, contract.version, contract.subjectType, new Date().toISOString()]);
}

/**
 * Inserts jobs into one of the caller's own queues inside the caller's
 * transaction (a command that must run once the change is committed, such as
 * a queued completion, or a delayed one: a flow's wait): the jobs commit or
 * roll back with the change. Each carries the trace it was queued in (its
 * own `trace`, else the active one).
 */
export async function enqueueInTransaction<Data extends object>(boss: PgBoss, em: EntityManager, queue: string, jobs: Data[], options: { startAfter?: Date } = {}): Promise<void> {
  if (!em.isInTransaction()) throw new Error(`job for ${queue} enqueued outside a transaction`);
  if (jobs.length) await boss.insert(queue, jobs.map((data) => ({ data: withTrace(data), ...options })), { db: transactionDb(em) });
}

/** A job as a worker received it; with `includeMetadata`, the attempt it was fetched at. */
export interface ClaimedJob {
  id: string;
  retryCount?: number;
}

/**
 * Settles claimed jobs inside the caller's transaction by deleting them
 * (pg-boss's `deleteJob`, fenced to the attempt fetched when it is known): a
 * job leaves its queue in the commit that applies it, so a crash can neither
 * lose it nor apply it twice, and the completion pg-boss runs after the
 * handler finds nothing left to write. That saves a row update per job (a
 * completed row is a full new copy of the job, indexes included) and a second
 * commit per batch. The price: a consumed job leaves no `completed` row behind.
 */
export async function settleInTransaction(boss: PgBoss, em: EntityManager, queue: string, jobs: readonly ClaimedJob[]): Promise<void> {
  if (!em.isInTransaction()) throw new Error(`jobs of ${queue} settled outside a transaction`);
  if (!jobs.length) return;
  const attempts = jobs.every((j) => Number.isInteger(j.retryCount)) ? jobs.map((j) => ({ id: j.id, retryCount: j.retryCount! })) : jobs.map((j) => j.id);
  await boss.deleteJob(queue, attempts, { db: transactionDb(em) });
}

/**
 * How long a job of a queue that must not lose work (an outbox event handed to
 * a consumer's queue, a flow's wait) waits before pg-boss would delete it
 * unworked (its default is 14 days): ten years, in practice until a worker
 * takes it. (Completed jobs are deleted after a week, pg-boss's default, which
 * is a separate setting.)
 */
export const OUTBOX_RETENTION_SECONDS = 10 * 365 * 24 * 3600;
