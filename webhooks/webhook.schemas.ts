import { DateTime, Int, Nullable, OneOf, OrNull, Strict, Text, Type, type Static } from '../platform/validation/index.js';

/**
 * Topics a subscription can take (decisions sections 10 and 20): one per kind of subject (`order`: orders as the orders API reads them), and
 * `operational` (the service telling the store about its own webhooks: `webhook.disabled`).
 */
export const WEBHOOK_TOPICS = ['return', 'inbound_shipment', 'inventory_item', 'custom_event', 'customer', 'order', 'operational'] as const;
export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];

/** Every event type a subscription can choose (`eventTypes`), as the catalog names them. */
export const WEBHOOK_EVENT_TYPES = [
  'return.created',
  'return.updated',
  'return.backfill',
  'inbound_shipment.created',
  'inbound_shipment.updated',
  'inbound_shipment.backfill',
  'inventory_item.created',
  'inventory_item.updated',
  'inventory_item.backfill',
  'custom_event.created',
  'customer.erased',
  'order.created',
  'order.updated',
  'order.deleted',
  'order.backfill',
  'webhook.disabled',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The most deliveries a second a subscription may ask to be limited to. */
const MAX_DELIVERIES_PER_SECOND = 10_000;

const Url = Text({ min: 1, max: 2048, description: 'https, except hosts allowed by configuration; never a private, loopback or link-local address.' });
const Token = Text({ min: 1, max: 1024, description: 'Sent as `Authorization: Bearer <token>` with every delivery.' });
const ExternalId = Text({ min: 1, max: 255, description: 'Your own id for the subscription: creating again with the same one updates it (200).' });

const CallbackInput = Strict({
  url: Url,
  auth: Nullable(Strict({ bearer: Strict({ token: Token }) })),
});

const Topics = Type.Array(OneOf(WEBHOOK_TOPICS), { minItems: 1, maxItems: WEBHOOK_TOPICS.length, uniqueItems: true, description: 'One or more topics (instead of `topic`).' });
const EventTypes = Type.Array(OneOf(WEBHOOK_EVENT_TYPES), {
  minItems: 1,
  maxItems: WEBHOOK_EVENT_TYPES.length,
  uniqueItems: true,
  description: 'Only these event types of its topics (`GET /v2.2/webhook-event-types` lists them); absent or null: every type of its topics.',
});
const MaxPerSecond = Int({ min: 1, max: MAX_DELIVERIES_PER_SECOND, description: 'At most this many deliveries a second to this subscription (absent or null: no limit).' });
/** The choices a subscription makes beside its callback (create, and PUT to change them). */
const Choices = {
  eventTypes: Type.Optional(Type.Union([EventTypes, Type.Null()])),
  maxDeliveriesPerSecond: Type.Optional(Type.Union([MaxPerSecond, Type.Null()])),
};

export const CreateWebhookSchema = Strict(
  {
    webhook: Strict({
      callback: CallbackInput,
      topic: Type.Optional(OneOf(WEBHOOK_TOPICS, { description: 'One topic (or `topics`).' })),
      topics: Type.Optional(Topics),
      ...Choices,
      externalId: Nullable(ExternalId),
      backfill: Type.Optional(Type.Boolean({ description: 'Also send one `backfill` event per existing subject of its topics (of the backfill types it chose).' })),
    }),
  },
  { title: 'CreateWebhook' },
);
export type CreateWebhookBody = Static<typeof CreateWebhookSchema>;

export const UpdateWebhookSchema = Strict(
  { webhook: Strict({ callback: CallbackInput, externalId: Nullable(ExternalId), topics: Type.Optional(Topics), ...Choices }) },
  { title: 'UpdateWebhook', description: 'Topics, event types and the rate are kept unless given.' },
);
export type UpdateWebhookBody = Static<typeof UpdateWebhookSchema>;

export const ReplayWebhookSchema = Strict({ start: DateTime({ description: 'Re-send, in order, the events since this time.' }) }, { title: 'ReplayWebhook' });
export const RecoverWebhookSchema = Strict({ since: DateTime({ description: 'Send again the messages given up (retries exhausted, or discarded while disabled) since this time.' }) }, { title: 'RecoverWebhook' });
export const RecoveredSchema = Strict({ recovered: Int({ min: 0, description: 'How many messages were queued again.' }) }, { title: 'RecoveredMessages' });
export const RotateSecretSchema = Strict(
  { overlapSeconds: Type.Optional(Int({ min: 0, max: 7 * 86400, description: 'How long the previous secret keeps signing beside the new one (default 86400: a day; 0: not at all).' })) },
  { title: 'RotateWebhookSecret' },
);
export const RotatedSecretSchema = Strict(
  {
    signingSecret: Type.String({ description: 'The new `whsec_` secret; shown only here.' }),
    previousSecretExpiresAt: OrNull(Type.String({ format: 'date-time', description: 'Until when deliveries also carry the previous secret\'s signature (null: no overlap).' })),
  },
  { title: 'RotatedWebhookSecret' },
);

const WebhookShape = {
  id: Type.String(),
  callback: Strict({
    url: Type.String(),
    auth: OrNull(Strict({ bearer: Strict({ token: Type.String({ description: '`****` and the last 4 characters.' }) }) })),
  }),
  topic: OneOf(WEBHOOK_TOPICS, { description: 'Its first topic (all of them: `topics`).' }),
  topics: Type.Array(OneOf(WEBHOOK_TOPICS)),
  eventTypes: OrNull(Type.Array(OneOf(WEBHOOK_EVENT_TYPES), { description: 'The event types it takes; null: every type of its topics.' })),
  kind: OneOf(['redo', 'loop'] as const, { description: '`loop`: made through the compatibility API (`/api/v1/webhooks`): Loop\'s deliveries.' }),
  loop: OrNull(Strict({ topic: Type.String(), trigger: Type.String() }, { description: "A Loop subscription's topic and trigger (null for the others)." })),
  externalId: OrNull(Type.String()),
  status: OneOf(['active', 'disabled'] as const),
  disabled: Type.Boolean({ description: 'True once disabled (a 410, nothing but failures for `WEBHOOK_DISABLE_AFTER_HOURS`, or deactivated); a PUT re-enables it.' }),
  disabledReason: OrNull(Type.String()),
  disabledAt: OrNull(Type.String({ format: 'date-time' })),
  failingSince: OrNull(Type.String({ format: 'date-time', description: 'The first failed attempt since the last success; null while deliveries succeed.' })),
  lastError: OrNull(Type.String({ description: 'The error of the last failed attempt (kept after a success).' })),
  successRate24h: OrNull(Type.Number({ minimum: 0, maximum: 1, description: 'Succeeded attempts over all finished attempts of the last 24 hours; null without any.' })),
  maxDeliveriesPerSecond: OrNull(Type.Integer()),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
};
const WebhookDocumentSchema = Strict(WebhookShape, { title: 'Webhook' });
export type WebhookDocument = Static<typeof WebhookDocumentSchema>;
const CreatedWebhookDocumentSchema = Strict(
  { ...WebhookShape, signingSecret: Type.String({ description: '`whsec_` + base64: the key of `webhook-signature`. Shown only here.' }) },
  { title: 'CreatedWebhook' },
);

export const WebhookResponseSchema = Strict({ webhook: WebhookDocumentSchema }, { title: 'WebhookResponse' });
export const CreatedWebhookResponseSchema = Strict({ webhook: CreatedWebhookDocumentSchema }, { title: 'CreatedWebhookResponse' });
export const WebhookListSchema = Strict({ webhooks: Type.Array(WebhookDocumentSchema) }, { title: 'WebhookList' });

const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'discarded'] as const;
const DeliveryDocumentSchema = Strict(
  {
    id: Type.String(),
    webhookId: Type.String(),
    messageId: Type.String({ description: 'The message (its `webhook-id`): resend it with `POST /webhooks/{webhookId}/messages/{messageId}/resend`.' }),
    eventId: Type.String(),
    type: Type.String({ description: '`created`, `updated`, `backfill` (the body\'s `type`), or a Loop trigger.' }),
    subjectId: Type.String(),
    attempt: Int({ min: 1 }),
    status: OneOf(DELIVERY_STATUSES),
    responseStatus: OrNull(Type.Integer()),
    durationMs: OrNull(Type.Integer()),
    error: OrNull(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { title: 'WebhookDelivery' },
);
export type DeliveryDocument = Static<typeof DeliveryDocumentSchema>;
export const DeliveryListSchema = Strict({ deliveries: Type.Array(DeliveryDocumentSchema) }, { title: 'WebhookDeliveryList' });

export const EventTypeListSchema = Strict(
  {
    eventTypes: Type.Array(
      Strict({
        type: OneOf(WEBHOOK_EVENT_TYPES),
        topic: OneOf(WEBHOOK_TOPICS),
        description: Type.String(),
        schema: Type.Unknown({ description: 'The JSON Schema of its body (the same as the OpenAPI `webhooks` entry).' }),
      }),
    ),
  },
  { title: 'WebhookEventTypeList' },
);
