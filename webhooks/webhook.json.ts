import type { TObject, TProperties } from '@sinclair/typebox';
import { isEventOf, type DataOf, type OutboxContract, type OutboxEvent } from '../platform/jobs/outbox.js';
import { CustomerErased } from '../platform/privacy/privacy.events.js';
import { DateTime, OneOf, OrNull, Strict, Type, type Static, type TSchema } from '../platform/validation/index.js';
import { CustomEventCreated } from '../subgraphs/events/public.js';
import { InboundShipmentCreated, InboundShipmentUpdated, InventoryItemCreated, InventoryItemUpdated } from '../subgraphs/inventory/public.js';
import { OrderCreated, OrderDeleted, OrderUpdated, ReturnCreated, ReturnUpdated } from '../subgraphs/returns/public.js';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_TOPICS, type WebhookEventType, type WebhookTopic } from './webhook.schemas.js';

/** What a topic's subscribers receive. */
interface Topic {
  /** The contracts whose events reach it; a delivery's `type` is what the contract's name ends with (`created`). */
  contracts: readonly OutboxContract[];
  /** Delivery types: the contracts', and `backfill` for topics whose subjects are state. */
  types: readonly string[];
  /** The body (decisions section 10): `type`, `at`, then the documents as the contracts carry them. */
  body: TObject;
  /** One line per delivery type, for the API reference. */
  summaries: Readonly<Record<string, string>>;
}

/** The disabled subscription a `webhook.disabled` delivery tells of. */
const DisabledWebhook = Strict({
  id: Type.String(),
  url: Type.String(),
  topics: Type.Array(Type.String()),
  kind: Type.String({ description: '`redo`, or `loop` (made through the compatibility API).' }),
  disabledReason: Type.String(),
  disabledAt: DateTime(),
  failingSince: OrNull(DateTime()),
  lastError: OrNull(Type.String()),
});
export type DisabledWebhookDocument = Static<typeof DisabledWebhook>;

/** `created` of `return.created`. */
const typeOf = (event: { type: string }) => event.type.slice(event.type.indexOf('.') + 1);

function topic<P extends TProperties>(contracts: readonly OutboxContract[], backfill: boolean, documents: P, summaries: Record<string, string>, extraTypes: readonly string[] = []) {
  const types = [...contracts.map(typeOf), ...(backfill ? ['backfill'] : []), ...extraTypes];
  const at = DateTime({ description: 'When the change committed (for a backfill, when it was sent).' });
  return { contracts, types, summaries, body: Strict({ type: OneOf(types), at, ...documents }) };
}

/**
 * Each topic's deliveries, declared from its contracts' payload schemas: the bodies sent
 * and the API reference's `webhooks` are one definition, and the documents in them are
 * the REST documents the owning subgraph publishes.
 */
const TOPICS = {
  return: topic(
    [ReturnCreated, ReturnUpdated],
    true,
    { merchantName: Type.String({ description: "The store's name." }), return: ReturnCreated.schema.properties.return, order: ReturnCreated.schema.properties.order },
    { created: 'A return was created', updated: 'A return changed (status, items, shipment, comments)', backfill: 'A return as it is now (backfill)' },
  ),
  inbound_shipment: topic([InboundShipmentCreated, InboundShipmentUpdated], true, InboundShipmentCreated.schema.properties, {
    created: 'An inbound shipment was created',
    updated: 'An inbound shipment changed (transit, receipts)',
    backfill: 'An inbound shipment as it is now (backfill)',
  }),
  inventory_item: topic([InventoryItemCreated, InventoryItemUpdated], true, InventoryItemCreated.schema.properties, {
    created: 'An inventory item was created',
    updated: "An inventory item's stock or name changed",
    backfill: 'An inventory item as it is now (backfill)',
  }),
  // Custom events are history, not state: no backfill.
  custom_event: topic([CustomEventCreated], false, CustomEventCreated.schema.properties, { created: 'A custom event was processed' }),
  // One per erasure, once it completed; it carries ids and counts, never an identifier's value.
  customer: topic([CustomerErased], false, CustomerErased.schema.properties, { erased: 'A customer was erased (a data subject request): erase your copies of them' }),
  // Orders as the orders API reads them (fulfillments and their tracking included), whichever API made them.
  order: topic([OrderCreated, OrderUpdated, OrderDeleted], true, OrderCreated.schema.properties, {
    created: 'An order was created',
    updated: 'An order changed (its fields or lines, a fulfillment, a tracking update)',
    deleted: 'An order was deleted (the order as it was)',
    backfill: 'An order as it is now (backfill)',
  }),
  // The service about the store's own webhooks: no outbox contract, sent by the deliverer.
  operational: topic(
    [],
    false,
    { webhook: DisabledWebhook },
    { 'webhook.disabled': 'A subscription of the store was disabled (nothing but failures for the disable window, or a 410): fix its receiver, then re-enable it with PUT' },
    ['webhook.disabled'],
  ),
} satisfies Record<WebhookTopic, Topic>;

/** The full name of a topic's delivery type (`return.created`); the operational topic's types are named already. */
export const eventTypeName = (topicName: WebhookTopic, type: string): string => (type.includes('.') ? type : `${topicName}.${type}`);

type Body<T extends WebhookTopic> = Static<(typeof TOPICS)[T]['body']>;

/** Every contract some topic carries: what the fan-out reads from the outbox. */
export const WEBHOOK_CONTRACTS: readonly OutboxContract[] = WEBHOOK_TOPICS.flatMap((t) => TOPICS[t].contracts);

// The fan-out's `wanted` filter (index.ts) finds an event's topic as its type's prefix.
for (const t of WEBHOOK_TOPICS) {
  for (const c of TOPICS[t].contracts) if (!c.type.startsWith(`${t}.`)) throw new Error(`outbox contract ${c.type} does not start with its webhook topic ${t}`);
}

/** What a message is about: its topic, its payload's `type`, and the lane that orders it. */
export interface Routed {
  topic: WebhookTopic;
  /** `created`, `updated` (or `backfill`). */
  type: string;
  subjectId: string;
  /** Events of one lane reach a subscription in commit order: the subject, or a custom event's customer. */
  lane: string;
}

/** The topic and lane of an outbox event, or null for an event no topic carries. */
export function route(event: OutboxEvent): Routed | null {
  const topic = WEBHOOK_TOPICS.find((t) => TOPICS[t].contracts.some((c) => isEventOf(c, event)));
  if (!topic) return null;
  // A custom event is its own subject, but its order is its customer's history.
  const lane = isEventOf(CustomEventCreated, event) ? event.data.customer.id : event.subjectId;
  return { topic, type: typeOf(event), subjectId: event.subjectId, lane };
}

/**
 * The body a subscriber receives, with the subject's REST document as the outbox contract carries
 * it (the change's own state, not a later read). `data` is an event's payload (or a backfill's
 * document) as read back from storage.
 */
export function payload(topic: WebhookTopic, type: string, at: string, data: unknown, merchantName: string): string {
  switch (topic) {
    case 'return': {
      const d = data as DataOf<typeof ReturnCreated>;
      return JSON.stringify({ type, at, merchantName, return: d.return, order: d.order } satisfies Body<'return'>);
    }
    case 'inbound_shipment': {
      const d = data as DataOf<typeof InboundShipmentCreated>;
      return JSON.stringify({ type, at, inbound_shipment: d.inbound_shipment } satisfies Body<'inbound_shipment'>);
    }
    case 'inventory_item': {
      const d = data as DataOf<typeof InventoryItemCreated>;
      return JSON.stringify({ type, at, inventory_item: d.inventory_item } satisfies Body<'inventory_item'>);
    }
    case 'custom_event': {
      const d = data as DataOf<typeof CustomEventCreated>;
      return JSON.stringify({ type, at, event: d.event, customer: d.customer } satisfies Body<'custom_event'>);
    }
    case 'customer': {
      const d = data as DataOf<typeof CustomerErased>;
      return JSON.stringify({ type, at, erasure: d.erasure } satisfies Body<'customer'>);
    }
    case 'order': {
      const d = data as DataOf<typeof OrderCreated>;
      return JSON.stringify({ type, at, orderId: d.orderId, order: d.order } satisfies Body<'order'>);
    }
    case 'operational':
      return JSON.stringify({ type, at, webhook: data as DisabledWebhookDocument } satisfies Body<'operational'>);
  }
}

/** One kind of request a subscriber receives, named `<topic>.<type>` (`return.created`), with its JSON body (its `type` fixed). */
export interface WebhookDelivery {
  name: string;
  topic: WebhookTopic;
  summary: string;
  body: TSchema;
}

/** Every kind of delivery, in topic order (the API reference's `webhooks`). */
export function webhookDeliveries(): WebhookDelivery[] {
  return WEBHOOK_TOPICS.flatMap((name) => {
    const { types, summaries, body } = TOPICS[name];
    return types.map((type) => {
      const summary = summaries[type];
      if (!summary) throw new Error(`the ${name} topic's ${type} deliveries have no summary`);
      return { name: eventTypeName(name, type), topic: name, summary, body: Strict({ ...body.properties, type: Type.Literal(type) }) };
    });
  });
}

/** The event type catalog (`GET /v2.2/webhook-event-types`): every delivery type with its topic, a description and its body's JSON Schema. */
export function eventTypeCatalog(schemaOf: (body: TSchema) => unknown): { type: WebhookEventType; topic: WebhookTopic; description: string; schema: unknown }[] {
  return webhookDeliveries().map((d) => ({ type: d.name as WebhookEventType, topic: d.topic, description: d.summary, schema: schemaOf(d.body) }));
}

/** The delivery types of a topic, by their full names. */
export function eventTypesOf(topicName: WebhookTopic): string[] {
  return TOPICS[topicName].types.map((t) => eventTypeName(topicName, t));
}

// The catalog and the schemas' list of event types are one list.
{
  const names = webhookDeliveries().map((d) => d.name);
  if (names.join() !== [...WEBHOOK_EVENT_TYPES].join()) throw new Error(`WEBHOOK_EVENT_TYPES (${WEBHOOK_EVENT_TYPES.join()}) differs from the topics' delivery types (${names.join()})`);
}
