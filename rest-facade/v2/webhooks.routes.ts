import { pageRequest } from '../../platform/api/pagination.js';
import {
  CreatedWebhookResponseSchema,
  CreateWebhookSchema,
  DeliveryListSchema,
  ReplayWebhookSchema,
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
    summary: 'Subscribe a callback URL to a topic (or update the subscription with the same externalId)',
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
    summary: 'Replace the callback; re-enables a subscription that a 410 disabled',
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
