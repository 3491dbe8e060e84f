import { rateLimitHeaders } from '../../platform/rate-limit.js';
import { BulkEventsSchema, CustomEventSchema, EVENT_LIMITS, EVENTS_RATE_POLICY, EVENTS_RATE_WINDOW_SECONDS, type EventAcceptance } from '../../subgraphs/events/public.js';
import type { RouteTable } from '../pipeline/routing.js';

interface RateLimitStatus {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

const limitHeaders = (status: RateLimitStatus) => rateLimitHeaders(EVENTS_RATE_POLICY, { allowed: true, ...status }, EVENTS_RATE_WINDOW_SECONDS);

/**
 * Event creation is the one REST route that skips GraphQL (a design decision:
 * docs/architecture.md): it hands the body to the events subgraph's own
 * acceptance path, the very code the createCustomEvent(s) mutations run, so
 * REST and GraphQL answer the same input the same way without the gateway hop
 * on the service's hottest route.
 */
export function registerEventRoutes(routes: RouteTable, events: EventAcceptance): void {
  routes.add('POST', '/stores/:storeId/events', {
    summary: 'Queue one custom event (202 once durably queued)',
    scope: 'customer_events_write',
    body: { limit: EVENT_LIMITS.bodyBytes, schema: CustomEventSchema, checkedBy: 'graph' },
    handle: async ({ params, body }) => ({ status: 202, headers: limitHeaders(await events.one(params.storeId!, body)) }),
  });
  routes.add('POST', '/stores/:storeId/events/bulk', {
    summary: 'Queue up to 100 custom events, each validated alone',
    scope: 'customer_events_write',
    body: { limit: EVENT_LIMITS.bodyBytes, schema: BulkEventsSchema, checkedBy: 'graph' },
    handle: async ({ params, body }) => {
      const { accepted, rejected, results, rateLimit } = await events.bulk(params.storeId!, body);
      return { status: 202, body: { accepted, rejected, results }, headers: limitHeaders(rateLimit) };
    },
  });
}
