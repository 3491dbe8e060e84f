import { CustomerSubscriptionsResultSchema, CustomerSubscriptionsSchema } from '../../subgraphs/events/public.js';
import { operation } from '../gateway-client.js';
import type { RouteRegistry } from '../pipeline/routing.js';

/** The real platform's consent operation: the events subgraph's `updateCustomerSubscriptions` checks the body and records it. */
const UPDATE_SUBSCRIPTIONS = operation(`
  mutation UpdateCustomerSubscriptions($storeId: ID!, $input: JSON!) { updateCustomerSubscriptions(storeId: $storeId, input: $input) { restJson } }`);

export function registerCustomerSubscriptionRoutes(routes: RouteRegistry): void {
  routes.add('POST', '/stores/:storeId/customer-subscriptions', {
    operationId: 'customerSubscriptionsUpdate',
    tag: 'Customers',
    summary: 'Update customer subscriptions',
    description:
      "Email and SMS consent of a customer, found by email or phone number (created when the store has none). Marketing: subscribed (SMS also `confirmed`, a completed double opt-in) or unsubscribed; SMS transactional: subscribed or unsubscribed. Each change is kept in the customer's consent history; a change dated before the stored one (`updatedAt`) is not recorded (`updatedSubscriptions` says false). `triggerAutomations` records a `Subscribed to Email Marketing` (and the like) event when the status changes, which can start flows. Flows send marketing only to subscribed customers (docs/consent.md). An erased email or phone is 409.",
    scope: 'customers_write',
    responses: { 200: { description: 'The changes were recorded (or were older than what the store holds).', schema: CustomerSubscriptionsResultSchema } },
    problems: { 409: ['customer-erased'] },
    body: { limit: 64 * 1024, schema: CustomerSubscriptionsSchema, checkedBy: 'graph' },
    handle: async ({ params, body, graphql }) => {
      const data = await graphql<{ updateCustomerSubscriptions: { restJson: string } }>(UPDATE_SUBSCRIPTIONS, { storeId: params.storeId, input: body });
      return { status: 200, json: data.updateCustomerSubscriptions.restJson };
    },
  });
}
