import { rateLimitHeaders } from '../../platform/rate-limit.js';
import { BulkEventsSchema, CustomEventSchema, EVENT_LIMITS, EVENTS_RATE_POLICY, EVENTS_RATE_WINDOW_SECONDS } from '../../subgraphs/events/public.js';
import { operation } from '../gateway-client.js';
import type { RouteTable } from '../pipeline/routing.js';

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

export function registerEventRoutes(routes: RouteTable): void {
  routes.add('POST', '/stores/:storeId/events', {
    summary: 'Queue one custom event (202 once durably queued)',
    scope: 'customer_events_write',
    body: { limit: EVENT_LIMITS.bodyBytes, schema: CustomEventSchema, checkedBy: 'graph' },
    handle: async ({ params, body, graphql }) => {
      const data = await graphql<{ createCustomEvent: { rateLimit: RateLimitStatus } }>(CREATE_EVENT, { storeId: params.storeId, event: body });
      return { status: 202, headers: limitHeaders(data.createCustomEvent.rateLimit) };
    },
  });
  routes.add('POST', '/stores/:storeId/events/bulk', {
    summary: 'Queue up to 100 custom events, each validated alone',
    scope: 'customer_events_write',
    body: { limit: EVENT_LIMITS.bodyBytes, schema: BulkEventsSchema, checkedBy: 'graph' },
    handle: async ({ params, body, graphql }) => {
      const data = await graphql<{ createCustomEvents: { accepted: number; rejected: number; results: BulkResult[]; rateLimit: RateLimitStatus } }>(CREATE_EVENTS, {
        storeId: params.storeId,
        body,
      });
      const { accepted, rejected, results, rateLimit } = data.createCustomEvents;
      return {
        status: 202,
        body: { accepted, rejected, results: results.map((r) => (r.status === 'queued' ? { index: r.index, status: r.status } : r)) },
        headers: limitHeaders(rateLimit),
      };
    },
  });
}
