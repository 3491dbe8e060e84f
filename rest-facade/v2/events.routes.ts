import { rateLimitHeaders } from '../../platform/api/rate-limit.js';
import { BulkEventsResultSchema, BulkEventsSchema, CustomEventSchema, EVENT_LIMITS, EVENTS_RATE_POLICY, EVENTS_RATE_WINDOW_SECONDS, type BulkEventsResult, type EventAcceptance } from '../../subgraphs/events/public.js';
import type { RouteRegistry } from '../pipeline/routing.js';
import { RATE_LIMIT_HEADERS } from './surface.js';

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
 * on the service's hottest route. `services.events` is read when a request
 * comes, so a table that only documents the routes needs none.
 */
export function registerEventRoutes(routes: RouteRegistry, services: { readonly events: EventAcceptance }): void {
  routes.add('POST', '/stores/:storeId/events', {
    operationId: 'createCustomEvent',
    tag: 'Custom events',
    summary: 'Queue one custom event (202 once durably queued)',
    description:
      'The customer is resolved by id, then email, then phone number (created when none matches). An event whose `uniqueId` was already seen in the store is dropped silently.',
    scope: 'customer_events_write',
    responses: { 202: { description: 'The event is durably queued; no body.', headers: RATE_LIMIT_HEADERS } },
    problems: { 409: ['customer-erased'], 503: ['service-unavailable'] },
    body: { limit: EVENT_LIMITS.bodyBytes, schema: CustomEventSchema, checkedBy: 'graph' },
    handle: async ({ params, body }) => ({ status: 202, headers: limitHeaders(await services.events.one(params.storeId!, body)) }),
  });
  routes.add('POST', '/stores/:storeId/events/bulk', {
    operationId: 'createCustomEvents',
    tag: 'Custom events',
    summary: 'Queue up to 100 custom events, each validated alone',
    description: 'The request counts once against the rate limit; `results` says which events were queued and why others were refused.',
    scope: 'customer_events_write',
    responses: { 202: { description: 'The valid events are durably queued.', schema: BulkEventsResultSchema, headers: RATE_LIMIT_HEADERS } },
    problems: { 503: ['service-unavailable'] },
    body: { limit: EVENT_LIMITS.bodyBytes, schema: BulkEventsSchema, checkedBy: 'graph' },
    handle: async ({ params, body }) => {
      const { accepted, rejected, results, rateLimit } = await services.events.bulk(params.storeId!, body);
      const shown: BulkEventsResult = { accepted, rejected, results };
      return { status: 202, body: shown, headers: limitHeaders(rateLimit) };
    },
  });
}
