import { AppError, type FieldError } from '../../platform/errors.js';
import { LOOP_TOPICS, LOOP_TRIGGERS, type LoopTopic, type LoopTrigger, type SubscriptionRow, type WebhookSubscriptions } from '../../webhooks/public.js';
import type { RouteRegistry } from '../pipeline/routing.js';
import { loopTime } from './format.js';
import { LoopCreatedWebhook, LoopWebhook, LoopWebhookBody, LoopWebhookList } from './schemas.js';
import { storeOf } from './returns.routes.js';

const TAG = 'Webhooks';
const BODY_LIMIT = 64 * 1024;

/** A subscription as Loop's webhook API shows it. */
function loopWebhook(row: SubscriptionRow) {
  return {
    id: Number(row.numeric_id),
    topic: row.loop_topic!,
    trigger: row.loop_trigger!,
    url: row.url,
    status: row.disabled_at === null ? ('active' as const) : ('inactive' as const),
    created_at: loopTime(row.created_at.toISOString(), 'details')!,
    updated_at: loopTime(row.updated_at.toISOString(), 'details')!,
  };
}

interface LoopInput {
  url?: string;
  topic?: LoopTopic;
  trigger?: LoopTrigger;
  active?: boolean;
}

/** Loop's webhook body read as Laravel validates it: every violation at once, in its 422 shape. */
function readInput(body: unknown, creating: boolean): LoopInput {
  const raw = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const errors: FieldError[] = [];
  const fail = (field: string, detail: string) => errors.push({ pointer: `/${field}`, detail });
  const text = (field: string): string | undefined => {
    const v = raw[field];
    if (v === undefined || v === null || v === '') {
      if (creating) fail(field, `The ${field} field is required.`);
      return undefined;
    }
    if (typeof v !== 'string') return void fail(field, `The ${field} field must be a string.`);
    return v;
  };
  const url = text('url');
  if (url !== undefined && (url.length > 2048 || !URL.canParse(url))) fail('url', 'The url field must be a valid URL.');
  const topic = text('topic');
  if (topic !== undefined && !(LOOP_TOPICS as readonly string[]).includes(topic)) fail('topic', 'The selected topic is invalid.');
  const trigger = text('trigger');
  if (trigger !== undefined && !(LOOP_TRIGGERS as readonly string[]).includes(trigger)) fail('trigger', 'The selected trigger is invalid.');
  const status = raw.status;
  if (status !== undefined && status !== null && status !== 'active' && status !== 'inactive') fail('status', 'The selected status is invalid.');
  if (errors.length) throw new AppError('unprocessable', 'validation-failed', errors[0]!.detail, { errors });
  return {
    url,
    topic: topic as LoopTopic | undefined,
    trigger: trigger as LoopTrigger | undefined,
    active: status === 'active' ? true : status === 'inactive' ? false : undefined,
  };
}

/**
 * Loop's programmatic webhook API on the compatibility face (decisions section 20): a store's compat
 * key lists, creates, changes and deletes its store's Loop subscriptions. They are webhook
 * subscriptions of kind `loop` (webhooks/): the same deliverer, order per return, retries, log and
 * health as the `/v2.2` ones; each delivery is the return as `details` shows it, signed with
 * `X-Loop-Signature`. The routes call the webhooks module directly, as `/v2.2/webhooks` does.
 */
export function registerCompatWebhookRoutes(routes: RouteRegistry, services: { readonly webhooks: WebhookSubscriptions }): void {
  routes.add('GET', '/webhooks', {
    operationId: 'getWebhooks',
    tag: TAG,
    summary: "The store's webhook subscriptions (made through this API)",
    scope: 'returns_read',
    responses: { 200: { description: 'Every subscription, oldest first.', schema: LoopWebhookList } },
    handle: async ({ principal }) => ({ status: 200, body: { webhooks: (await services.webhooks.loopList(storeOf(principal))).map(loopWebhook) } }),
  });

  routes.add('POST', '/webhooks', {
    operationId: 'createWebhook',
    tag: TAG,
    summary: 'Subscribe a URL to a topic and trigger',
    description:
      'Active at once unless `status` is `inactive`. Each delivery is the return as `/warehouse/return/details` shows it (with `topic` and `trigger`), in order per return, ' +
      'signed with `X-Loop-Signature`: the base64 HMAC-SHA256 of the body keyed with `secret` (shown only in this answer).',
    scope: 'returns_write',
    body: { limit: BODY_LIMIT, schema: LoopWebhookBody, checkedBy: 'graph' },
    responses: { 201: { description: 'Created.', schema: LoopCreatedWebhook } },
    problems: { 422: ['validation-failed'] },
    handle: async ({ principal, body }) => {
      const input = readInput(body, true);
      const { row, secret } = await services.webhooks.loopCreate(principal, storeOf(principal), { url: input.url!, topic: input.topic!, trigger: input.trigger!, active: input.active ?? true });
      return { status: 201, body: { ...loopWebhook(row), secret } };
    },
  });

  routes.add('PUT', '/webhooks/:id', {
    operationId: 'updateWebhook',
    tag: TAG,
    summary: 'Change a subscription (what is given); `status: active` re-enables it, `inactive` deactivates it',
    description: 'Re-enabling sends what it is owed, in order per return.',
    scope: 'returns_write',
    body: { limit: BODY_LIMIT, schema: LoopWebhookBody, checkedBy: 'graph' },
    responses: { 200: { description: 'The subscription as changed.', schema: LoopWebhook } },
    problems: { 404: ['webhook-not-found'], 422: ['validation-failed'] },
    handle: async ({ principal, params, body }) => {
      const row = await services.webhooks.loopFind(principal, params.id!);
      const input = readInput(body, false);
      return { status: 200, body: loopWebhook(await services.webhooks.loopUpdate(principal, String(row.numeric_id), input)) };
    },
  });

  routes.add('DELETE', '/webhooks/:id', {
    operationId: 'deleteWebhook',
    tag: TAG,
    summary: 'Delete a subscription: nothing more is sent to it',
    scope: 'returns_write',
    responses: { 204: { description: 'Deleted.' } },
    problems: { 404: ['webhook-not-found'] },
    handle: async ({ principal, params }) => {
      await services.webhooks.loopDelete(principal, params.id!);
      return { status: 204 };
    },
  });
}
