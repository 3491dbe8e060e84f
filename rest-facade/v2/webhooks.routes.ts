import { pageRequest } from '../../platform/api/pagination.js';
import {
  CreatedWebhookResponseSchema,
  CreateWebhookSchema,
  DeliveryListSchema,
  eventTypeCatalog,
  EventTypeListSchema,
  RecoveredSchema,
  RecoverWebhookSchema,
  ReplayWebhookSchema,
  RotatedSecretSchema,
  RotateSecretSchema,
  UpdateWebhookSchema,
  WebhookListSchema,
  WebhookResponseSchema,
  type WebhookSubscriptions,
} from '../../webhooks/public.js';
import type { RouteRegistry } from '../pipeline/routing.js';

const TAG = 'Webhooks';
const BODY_LIMIT = 64 * 1024;

/**
 * Webhook subscriptions (decisions sections 10 and 14). Subscriptions are not domain data of any
 * subgraph: the routes call the webhooks module directly (like event creation calls the events
 * subgraph's acceptance), after the pipeline's checks. `services.webhooks` is read when a request comes.
 */
export function registerWebhookRoutes(routes: RouteRegistry, services: { readonly webhooks: WebhookSubscriptions }): void {
  // One source: the catalog's schemas are the bodies the API reference's `webhooks` declares (webhooks/webhook.json.ts).
  const catalog = eventTypeCatalog((body) => JSON.parse(JSON.stringify(body)) as unknown);
  routes.add('GET', '/webhook-event-types', {
    operationId: 'listWebhookEventTypes',
    tag: TAG,
    summary: 'Every webhook event type, with its topic, a description and the JSON Schema of its body',
    description: 'A subscription takes `topics` and optionally `eventTypes` among these. The schemas are the same as the `webhooks` section of this document.',
    scope: 'webhooks_read',
    responses: { 200: { description: 'The catalog.', schema: EventTypeListSchema } },
    handle: async () => ({ status: 200, body: { eventTypes: catalog } }),
  });

  routes.add('GET', '/stores/:storeId/webhooks', {
    operationId: 'listWebhooks',
    tag: TAG,
    summary: "A store's webhook subscriptions, newest first",
    scope: 'webhooks_read',
    paginated: true,
    responses: { 200: { description: 'A page of subscriptions (bearer tokens masked).', schema: WebhookListSchema } },
    handle: async ({ params, page }) => {
      const storeId = params.storeId!;
      const result = await services.webhooks.list(storeId, pageRequest(page.first, page.after, { list: 'webhooks', storeId }));
      return { status: 200, body: { webhooks: result.items }, page: result };
    },
  });

  routes.add('POST', '/stores/:storeId/webhooks', {
    operationId: 'createWebhook',
    tag: TAG,
    summary: 'Subscribe a callback URL to topics (or update the subscription with the same externalId)',
    description:
      'The callback must be https (hosts allowed by configuration excepted) and may not point at a loopback, private, link-local, multicast or unspecified address. ' +
      'The 201 answer alone carries `signingSecret`, the key of the `webhook-signature` header. With `backfill: true`, one `backfill` event per existing subject follows.',
    scope: 'webhooks_write',
    body: { limit: BODY_LIMIT, schema: CreateWebhookSchema },
    responses: {
      201: { description: 'Created; `signingSecret` is shown only here.', schema: CreatedWebhookResponseSchema },
      200: { description: 'The subscription with this externalId was updated.', schema: WebhookResponseSchema },
    },
    handle: async ({ principal, params, body }) => {
      const { created, webhook } = await services.webhooks.create(principal, params.storeId!, body);
      return { status: created ? 201 : 200, body: { webhook } };
    },
  });

  routes.add('GET', '/webhooks/:webhookId', {
    operationId: 'getWebhook',
    tag: TAG,
    summary: 'One webhook subscription',
    scope: 'webhooks_read',
    responses: { 200: { description: 'The subscription (bearer token masked).', schema: WebhookResponseSchema } },
    problems: { 404: ['webhook-not-found'] },
    handle: async ({ principal, params }) => ({ status: 200, body: { webhook: await services.webhooks.get(principal, params.webhookId!) } }),
  });

  routes.add('PUT', '/webhooks/:webhookId', {
    operationId: 'updateWebhook',
    tag: TAG,
    summary: 'Replace the callback (and topics, event types, rate); re-enables a disabled subscription',
    scope: 'webhooks_write',
    body: { limit: BODY_LIMIT, schema: UpdateWebhookSchema },
    responses: { 204: { description: 'Updated; waiting events go out in order.' } },
    problems: { 404: ['webhook-not-found'] },
    handle: async ({ principal, params, body }) => {
      await services.webhooks.update(principal, params.webhookId!, body);
      return { status: 204 };
    },
  });

  routes.add('DELETE', '/webhooks/:webhookId', {
    operationId: 'deleteWebhook',
    tag: TAG,
    summary: 'Delete a subscription (its owed events and its log go with it)',
    scope: 'webhooks_write',
    responses: { 204: { description: 'Deleted.' } },
    problems: { 404: ['webhook-not-found'] },
    handle: async ({ principal, params }) => {
      await services.webhooks.delete(principal, params.webhookId!);
      return { status: 204 };
    },
  });

  routes.add('POST', '/webhooks/:webhookId/replay', {
    operationId: 'replayWebhook',
    tag: TAG,
    summary: "Re-send, in order, the subscription's events since a time",
    description: 'Replayed events are new messages (new `webhook-id`s) queued after what is owed now. Events are kept 30 days.',
    scope: 'webhooks_write',
    body: { limit: BODY_LIMIT, schema: ReplayWebhookSchema },
    responses: { 202: { description: 'The replay is queued.' } },
    problems: { 404: ['webhook-not-found'] },
    handle: async ({ principal, params, body }) => {
      await services.webhooks.replay(principal, params.webhookId!, body.start);
      return { status: 202 };
    },
  });

  routes.add('POST', '/webhooks/:webhookId/recover', {
    operationId: 'recoverWebhook',
    tag: TAG,
    summary: 'Send again only the messages given up since a time',
    description:
      'The messages whose retries were exhausted (or that were discarded while the subscription stayed disabled) since `since`, each once, as new messages (new `webhook-id`s) ' +
      'queued after what is owed now, in their original order per subject. A message whose copy is still owed or was delivered is not sent again.',
    scope: 'webhooks_write',
    body: { limit: BODY_LIMIT, schema: RecoverWebhookSchema },
    responses: { 202: { description: 'Queued: how many.', schema: RecoveredSchema } },
    problems: { 404: ['webhook-not-found'] },
    handle: async ({ principal, params, body }) => ({ status: 202, body: { recovered: await services.webhooks.recover(principal, params.webhookId!, body.since) } }),
  });

  routes.add('POST', '/webhooks/:webhookId/messages/:messageId/resend', {
    operationId: 'resendWebhookMessage',
    tag: TAG,
    summary: 'Send one message again',
    description: 'A copy of the message (its `messageId` in the deliveries log), with a new `webhook-id`, after what its subject owes now.',
    scope: 'webhooks_write',
    responses: { 202: { description: 'Queued.' } },
    problems: { 404: ['webhook-not-found', 'webhook-message-not-found'] },
    handle: async ({ principal, params }) => {
      await services.webhooks.resend(principal, params.webhookId!, params.messageId!);
      return { status: 202 };
    },
  });

  routes.add('POST', '/webhooks/:webhookId/rotate-secret', {
    operationId: 'rotateWebhookSecret',
    tag: TAG,
    summary: 'A new signing secret, the previous one signing beside it for an overlap',
    description:
      'During the overlap (`overlapSeconds`, a day by default) every delivery carries two signatures in `webhook-signature`, space separated: the new secret\'s first, then the previous one\'s. ' +
      'A receiver verifying with either secret accepts it, so switching secrets never fails a verification.',
    scope: 'webhooks_write',
    body: { limit: BODY_LIMIT, schema: RotateSecretSchema, optional: true },
    responses: { 200: { description: 'The new secret, shown only here.', schema: RotatedSecretSchema } },
    problems: { 404: ['webhook-not-found'], 409: ['webhook-secret-not-rotatable'] },
    handle: async ({ principal, params, body }) => ({ status: 200, body: await services.webhooks.rotateSecret(principal, params.webhookId!, body?.overlapSeconds) }),
  });

  routes.add('GET', '/webhooks/:webhookId/deliveries', {
    operationId: 'listWebhookDeliveries',
    tag: TAG,
    summary: 'The delivery attempts of a subscription, newest first',
    scope: 'webhooks_read',
    paginated: true,
    responses: { 200: { description: 'A page of attempts.', schema: DeliveryListSchema } },
    problems: { 404: ['webhook-not-found'] },
    handle: async ({ principal, params, page }) => {
      const webhookId = params.webhookId!;
      const result = await services.webhooks.deliveries(principal, webhookId, pageRequest(page.first, page.after, { list: 'webhook-deliveries', webhookId }));
      return { status: 200, body: { deliveries: result.items }, page: result };
    },
  });
}
