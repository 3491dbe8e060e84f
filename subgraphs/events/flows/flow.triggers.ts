import { sql, type EntityManager } from '../../../platform/db/orm.js';
import { enqueueInTransaction, type OutboxEvent } from '../../../platform/outbox.js';
import type { PgBoss } from '../../../platform/queue.js';
import type { CustomEventCreatedData } from '../custom-event.events.js';

/** The queue runs start from: processed custom events that an active flow is triggered by. */
export const FLOW_TRIGGERS_QUEUE = 'flow-triggers';

const key = (storeId: string, eventName: string) => `${storeId}\u0000${eventName}`;

/**
 * Feeds the flows' queue from event processing, in its transaction (the jobs
 * commit with the events). Only events of a (store, event name) that some
 * active flow is triggered by are queued, found with one indexed read, so the
 * stores without flows (most events) cost the flows nothing: no job to
 * insert, fetch and complete per event. The runner still decides each run
 * (trigger conditions, audience, the flow's activation time), once per
 * (flow, event).
 *
 * A flow activated in the instant between that read and the batch's commit
 * can miss events that the batch stores; documented in docs/flows.md.
 */
export async function enqueueFlowTriggers(boss: PgBoss, em: EntityManager, events: readonly OutboxEvent<string, CustomEventCreatedData>[]): Promise<void> {
  if (!events.length) return;
  const pairs = [...new Map(events.map((e) => [key(e.storeId, e.data.event.eventName), [e.storeId, e.data.event.eventName]])).values()];
  const active = await sql<{ storeId: string; eventName: string }>(
    em,
    `select distinct f.store_id as "storeId", f.trigger_event_name as "eventName" from flow f
       join unnest($1::text[], $2::text[]) k(store_id, event_name) on f.store_id = k.store_id and f.trigger_event_name = k.event_name
      where f.status = 'ACTIVE'`,
    [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
  );
  if (!active.length) return;
  const wanted = new Set(active.map((a) => key(a.storeId, a.eventName)));
  await enqueueInTransaction(boss, em, FLOW_TRIGGERS_QUEUE, events.filter((e) => wanted.has(key(e.storeId, e.data.event.eventName))));
}
