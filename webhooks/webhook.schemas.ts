import { DateTime, Int, Nullable, OneOf, OrNull, Strict, Text, Type, type Static } from '../platform/validation/index.js';

/** Topics a subscription can take (decisions section 10): one per kind of subject. */
export const WEBHOOK_TOPICS = ['return', 'inbound_shipment', 'inventory_item', 'custom_event', 'customer', 'order'] as const;
export type WebhookTopic = (typeof WEBHOOK_TOPICS)[number];

const Url = Text({ min: 1, max: 2048, description: 'https, except hosts allowed by configuration; never a private, loopback or link-local address.' });
const Token = Text({ min: 1, max: 1024, description: 'Sent as `Authorization: Bearer <token>` with every delivery.' });
const ExternalId = Text({ min: 1, max: 255, description: 'Your own id for the subscription: creating again with the same one updates it (200).' });

const CallbackInput = Strict({
  url: Url,
  auth: Nullable(Strict({ bearer: Strict({ token: Token }) })),
});

export const CreateWebhookSchema = Strict(
  {
    webhook: Strict({
      callback: CallbackInput,
      topic: OneOf(WEBHOOK_TOPICS),
      externalId: Nullable(ExternalId),
      backfill: Type.Optional(Type.Boolean({ description: 'Also send one `backfill` event per existing subject of the topic.' })),
    }),
  },
  { title: 'CreateWebhook' },
);
export type CreateWebhookBody = Static<typeof CreateWebhookSchema>;

export const UpdateWebhookSchema = Strict({ webhook: Strict({ callback: CallbackInput, externalId: Nullable(ExternalId) }) }, { title: 'UpdateWebhook' });
export type UpdateWebhookBody = Static<typeof UpdateWebhookSchema>;

export const ReplayWebhookSchema = Strict({ start: DateTime({ description: 'Re-send, in order, the events since this time.' }) }, { title: 'ReplayWebhook' });

const WebhookShape = {
  id: Type.String(),
  callback: Strict({
    url: Type.String(),
    auth: OrNull(Strict({ bearer: Strict({ token: Type.String({ description: '`****` and the last 4 characters.' }) }) })),
  }),
  topic: OneOf(WEBHOOK_TOPICS),
  kind: Type.Literal('redo'),
  externalId: OrNull(Type.String()),
  disabled: Type.Boolean({ description: 'True after the receiver answered 410; a PUT re-enables it.' }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
};
export const WebhookDocumentSchema = Strict(WebhookShape, { title: 'Webhook' });
export type WebhookDocument = Static<typeof WebhookDocumentSchema>;
export const CreatedWebhookDocumentSchema = Strict(
  { ...WebhookShape, signingSecret: Type.String({ description: '`whsec_` + base64: the key of `webhook-signature`. Shown only here.' }) },
  { title: 'CreatedWebhook' },
);

export const WebhookResponseSchema = Strict({ webhook: WebhookDocumentSchema }, { title: 'WebhookResponse' });
export const CreatedWebhookResponseSchema = Strict({ webhook: CreatedWebhookDocumentSchema }, { title: 'CreatedWebhookResponse' });
export const WebhookListSchema = Strict({ webhooks: Type.Array(WebhookDocumentSchema) }, { title: 'WebhookList' });

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'discarded'] as const;
export const DeliveryDocumentSchema = Strict(
  {
    id: Type.String(),
    webhookId: Type.String(),
    eventId: Type.String(),
    type: Type.String({ description: '`created`, `updated` or `backfill`.' }),
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
