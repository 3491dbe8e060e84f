import type { OutboxEvent } from '../platform/outbox.js';
import type { CustomEventCreatedData } from '../subgraphs/events/public.js';
import type { ReturnEventData } from '../subgraphs/returns/public.js';
import type { WebhookTopic } from './webhook.schemas.js';

/** What a message is about: its topic, its payload's `type`, and the lane that orders it. */
export interface Routed {
  topic: WebhookTopic;
  /** `created`, `updated` (or `backfill`). */
  type: string;
  subjectId: string;
  /** Events of one lane reach a subscription in commit order: the subject, or a custom event's customer. */
  lane: string;
}

const TOPICS = new Set<string>(['return', 'inbound_shipment', 'inventory_item', 'custom_event']);

/** The topic and lane of an outbox event, or null for an event no topic carries. */
export function route(event: OutboxEvent): Routed | null {
  if (!TOPICS.has(event.subjectType) || event.version !== 1) return null;
  const topic = event.subjectType as WebhookTopic;
  const type = event.type.slice(event.type.indexOf('.') + 1);
  // A custom event is its own subject, but its order is its customer's history.
  const lane = topic === 'custom_event' ? (event.data as CustomEventCreatedData).customer.id : event.subjectId;
  return { topic, type, subjectId: event.subjectId, lane };
}

/**
 * The body a subscriber receives (decisions section 10): `{type, at, ...}` with the subject's REST
 * document, as the outbox contract carries it (the change's own state, not a later read).
 */
export function payload(topic: WebhookTopic, type: string, at: string, data: unknown, merchantName: string): string {
  switch (topic) {
    case 'return': {
      const d = data as Pick<ReturnEventData, 'return' | 'order'>;
      return JSON.stringify({ type, at, merchantName, return: d.return, order: d.order });
    }
    case 'inbound_shipment':
      return JSON.stringify({ type, at, inbound_shipment: (data as { inbound_shipment: unknown }).inbound_shipment });
    case 'inventory_item':
      return JSON.stringify({ type, at, inventory_item: (data as { inventory_item: unknown }).inventory_item });
    case 'custom_event': {
      const d = data as CustomEventCreatedData;
      return JSON.stringify({ type, at, event: d.event, customer: d.customer });
    }
  }
}
