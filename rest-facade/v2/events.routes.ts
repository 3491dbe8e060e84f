import { rateLimitHeaders } from '../../platform/rate-limit.js';
import { BulkEventsResultSchema, BulkEventsSchema, CustomEventSchema, EVENT_LIMITS, EVENTS_RATE_POLICY, EVENTS_RATE_WINDOW_SECONDS, type BulkEventsResult } from '../../subgraphs/events/public.js';
import { operation } from '../gateway-client.js';
import type { RouteRegistry } from '../pipeline/routing.js';
import { RATE_LIMIT_HEADERS } from './surface.js';

// Validation, the per-store rate limit and the durable enqueue all live in the events subgraph's
// mutations, so GraphQL clients get exactly what REST clients get; the routes only map HTTP.
const CREATE_EVENT = operation(`
  mutation CreateCustomEvent($storeId: ID!, $event: JSON!) {
    createCustomEvent(storeId: $storeId, event: $event) { queued rateLimit { limit remaining resetSeconds } }
  }
`);

const CREATE_EVENTS = operation(`
  mutation CreateCustomEvents($storeId: ID!, $body: JSON!) {
    createCustomEvents(storeId: $storeId, body: $body) {
      accepted rejected results { index status error } rateLimit { limit remaining resetSeconds }
    }
  }
`);

interface RateLimitStatus {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

interface BulkResult {
  index: number;
  status: 'queued' | 'rejected';
  error: unknown;
}

const limitHeaders = (status: RateLimitStatus) => rateLimitHeaders(EVENTS_RATE_POLICY, { allowed: true, ...status }, EVENTS_RATE_WINDOW_SECONDS);

export function registerEventRoutes(routes: RouteRegistry): void {
  routes.add('POST', '/stores/:storeId/events', {
    operationId: 'createCustomEvent',
    tag: 'Custom events',
    summary: 'Queue one custom event (202 once durably queued)',
    description:
      'The customer is resolved by id, then email, then phone number (created when none matches). An event whose `uniqueId` was already seen in the store is dropped silently.',
    scope: 'customer_events_write',
    responses: { 202: { description: 'The event is durably queued; no body.', headers: RATE_LIMIT_HEADERS } },
    body: { limit: EVENT_LIMITS.bodyBytes, schema: CustomEventSchema, checkedBy: 'graph' },
    handle: async ({ params, body, graphql }) => {
      const data = await graphql<{ createCustomEvent: { rateLimit: RateLimitStatus } }>(CREATE_EVENT, { storeId: params.storeId, event: body });
      return { status: 202, headers: limitHeaders(data.createCustomEvent.rateLimit) };
    },
  });
  routes.add('POST', '/stores/:storeId/events/bulk', {
    operationId: 'createCustomEvents',
    tag: 'Custom events',
    summary: 'Queue up to 100 custom events, each validated alone',
    description: 'The request counts once against the rate limit; `results` says which events were queued and why others were refused.',
    scope: 'customer_events_write',
    responses: { 202: { description: 'The valid events are durably queued.', schema: BulkEventsResultSchema, headers: RATE_LIMIT_HEADERS } },
    body: { limit: EVENT_LIMITS.bodyBytes, schema: BulkEventsSchema, checkedBy: 'graph' },
    handle: async ({ params, body, graphql }) => {
      const data = await graphql<{ createCustomEvents: { accepted: number; rejected: number; results: BulkResult[]; rateLimit: RateLimitStatus } }>(CREATE_EVENTS, {
        storeId: params.storeId,
        body,
      });
      const { accepted, rejected, results, rateLimit } = data.createCustomEvents;
      const shown: BulkEventsResult = {
        accepted,
        rejected,
        results: results.map((r) => (r.status === 'queued' ? { index: r.index, status: r.status } : (r as BulkEventsResult['results'][number]))),
      };
      return {
        status: 202,
        body: shown,
        headers: limitHeaders(rateLimit),
      };
    },
  });
}
