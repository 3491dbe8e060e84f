/**
 * What the rest of the system may use of the events subgraph: its event
 * contract, the limits and schemas of custom event requests and of the bulk
 * answer, and the name of its rate-limit policy. Everything else is internal.
 */
export { CustomEventCreated, CustomEventDocumentSchema, CustomerDocumentSchema } from './custom-event.events.js';
export { FlowRunDocumentSchema, MessageDocumentSchema } from './flows/flow.json.js';
export type { EventAcceptance } from './event-acceptance.service.js';
export { EVENTS_RATE_POLICY, EVENTS_RATE_WINDOW_SECONDS } from './event-ingestion.service.js';
export { BulkEventsResultSchema, BulkEventsSchema, CustomEventSchema, EVENT_LIMITS, type BulkEventsResult } from './custom-event.schemas.js';
export type { MessagingEndpoints, UnsubscribeView, InboundSms } from './customers/consent-endpoints.service.js';
export { CustomerSubscriptionsResultSchema, CustomerSubscriptionsSchema } from './customers/consent.schemas.js';
export { StorefrontEventSchema } from './storefront-event.schemas.js';
export { CustomerQuerySchema, CustomerUpsertSchema } from './customers/customer.schemas.js';
export { CustomerUpsertResultSchema, RestCustomerSchema } from './customers/customer.json.js';
export { ConsentChangeDocumentSchema, ConsentDocumentSchema } from './customers/consent.json.js';
// The segment definition input, for the subgraphs that take one and ask this one for its members (returnStats).
export { SegmentDefinitionInput } from './segments/segment.input.js';
