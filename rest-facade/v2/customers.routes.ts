import { notFound } from '../../platform/errors.js';
import { CustomerQuerySchema, CustomerUpsertResultSchema, CustomerUpsertSchema, EVENT_LIMITS, RestCustomerSchema, StorefrontEventSchema } from '../../subgraphs/events/public.js';
import { operation } from '../gateway-client.js';
import type { RouteRegistry } from '../pipeline/routing.js';

/**
 * The real platform's customer operations and storefront events: each runs one operation of the
 * events subgraph (storefront events reach the custom events' acceptance from there).
 */
const GET_CUSTOMER = operation(`query CustomerByEmail($storeId: ID!, $email: String!) { customer(storeId: $storeId, email: $email) { apiJson } }`);

const UPSERT_CUSTOMER = operation(`
  mutation UpsertCustomer($storeId: ID!, $input: JSON!) { upsertCustomer(storeId: $storeId, input: $input) { created customer { id email } } }`);

const STOREFRONT_EVENT = operation(`
  mutation RecordStorefrontEvent($storeId: ID!, $event: JSON!) { recordStorefrontEvent(storeId: $storeId, event: $event) { queued } }`);

export function registerCustomerRoutes(routes: RouteRegistry): void {
  routes.add('GET', '/stores/:storeId/customers', {
    operationId: 'getCustomer',
    tag: 'Customers',
    summary: 'A customer profile by email',
    description: 'The profile custom events and the customer upsert keep: name, phone, location and custom fields (dates as ISO 8601 strings).',
    scope: 'customers_read',
    query: CustomerQuerySchema,
    responses: { 200: { description: 'The customer.', schema: RestCustomerSchema } },
    problems: { 404: ['customer-not-found'] },
    handle: async ({ params, query, graphql }) => {
      const data = await graphql<{ customer: { apiJson: string | null } | null }>(GET_CUSTOMER, { storeId: params.storeId, email: query.email });
      if (!data.customer?.apiJson) throw notFound('customer-not-found', 'The store has no customer with this email.');
      return { status: 200, json: data.customer.apiJson };
    },
  });

  routes.add('PUT', '/stores/:storeId/customers', {
    operationId: 'upsertCustomer',
    tag: 'Customers',
    summary: 'Create or update a customer by email',
    description:
      'The email (any case) is the key: its customer is updated, else one is created. Given fields replace (a name), `location` and `customFields` merge key by key (ISO 8601 date-time values are typed as dates), and a phone is added when the customer has none and no other customer of the store has it (a customer keeps one phone). An erased email or phone is 409: no profile is made again for an erased person.',
    scope: 'customers_write',
    responses: {
      200: { description: 'An existing customer was updated.', schema: CustomerUpsertResultSchema },
      201: { description: 'A customer was created.', schema: CustomerUpsertResultSchema },
    },
    problems: { 409: ['customer-erased'] },
    body: { limit: 1024 * 1024, schema: CustomerUpsertSchema, checkedBy: 'graph' },
    handle: async ({ params, body, graphql }) => {
      const data = await graphql<{ upsertCustomer: { created: boolean; customer: { id: string; email: string } } }>(UPSERT_CUSTOMER, { storeId: params.storeId, input: body });
      const { created, customer } = data.upsertCustomer;
      return { status: created ? 201 : 200, body: { id: customer.id, email: customer.email, created } };
    },
  });

  routes.add('POST', '/stores/:storeId/storefront/events', {
    operationId: 'createStorefrontEvent',
    tag: 'Storefront',
    summary: 'Receive a storefront (Shopify web-pixel) event',
    description:
      "The event becomes the custom event of its name (`product_viewed`, `checkout_completed`, ...) with the pixel's facts as properties, accepted as custom events are (the same limits, processing and flows); its `eventId` makes a resent event count once. The person is its email or phone (or its checkout's); its visitor ids are remembered with them, and the events of a visitor not identified yet wait (up to 100, 30 days) for the first event that identifies them. The mapping: docs/events.md#storefront-events.",
    scope: 'storefront_events_write',
    responses: { 204: { description: 'The event was accepted (queued, or held until its visitor is identified).' } },
    problems: { 409: ['customer-erased'], 503: ['service-unavailable'] },
    body: { limit: EVENT_LIMITS.bodyBytes, schema: StorefrontEventSchema, checkedBy: 'graph' },
    handle: async ({ params, body, graphql }) => {
      await graphql(STOREFRONT_EVENT, { storeId: params.storeId, event: body });
      return { status: 204 };
    },
  });
}
