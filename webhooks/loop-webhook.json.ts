import type { OutboxEvent } from '../platform/jobs/outbox.js';
// Loop's formats are decided in one place, the compatibility API's (rest-facade/compat/); its
// formatting is pure (no facade state), so Loop deliveries show a return exactly as `details` does.
import { loopReturn } from '../rest-facade/compat/format.js';
import { loopState } from '../rest-facade/compat/params.js';
import type { ReturnEventData, ReturnRecord } from '../subgraphs/returns/public.js';
import type { LoopTopic, LoopTrigger } from './webhook.service.js';

/** A return event's record, when it carries one (events published before records were added do not). */
export function recordOf(event: OutboxEvent): ReturnRecord | null {
  return (event.data as Partial<ReturnEventData>).record ?? null;
}

/** The label a return shows (carrier, tracking number, status): what Loop's label triggers watch. */
export function labelOf(record: ReturnRecord): string | null {
  const s = record.shipment;
  return s ? JSON.stringify([s.carrier, s.tracker, s.status]) : null;
}

/**
 * Loop's triggers a return event fires (decisions section 20), besides the label ones (which need
 * the label a subscription last heard of: the fan-out's): `return.created` on creation,
 * `return.updated` on every change, `return.closed` when it becomes closed, `restock.requested` when
 * it is completed with an item to restock.
 */
export function returnTriggers(event: OutboxEvent, record: ReturnRecord): LoopTrigger[] {
  const data = event.data as ReturnEventData;
  if (event.type === 'return.created') return ['return.created'];
  const triggers: LoopTrigger[] = ['return.updated'];
  const at = new Date(event.occurredAt);
  const wasClosed = data.previousStatus === 'complete' || data.previousStatus === 'rejected';
  if (!wasClosed && loopState(record, at) === 'closed') triggers.push('return.closed');
  if (record.status === 'complete' && data.previousStatus !== 'complete' && data.items.some((i) => i.restock)) triggers.push('restock.requested');
  return triggers;
}

/** A Loop delivery's body: the return as `/warehouse/return/details` shows it (as of the change), with the subscription's topic and the trigger. */
export function loopBody(record: ReturnRecord, at: string, topic: LoopTopic, trigger: LoopTrigger): string {
  return JSON.stringify({ ...loopReturn(record, 'details', new Date(at)), topic, trigger });
}
