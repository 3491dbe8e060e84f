import { notFound } from '../../platform/errors.js';
import {
  CreatedOrderSchema,
  CreateFulfillmentSchema,
  CreateOrderSchema,
  DeletedOrderSchema,
  FulfillmentResultSchema,
  FulfillmentStatusSchema,
  OrdersApiOrderSchema,
} from '../../subgraphs/returns/public.js';
import { operation } from '../gateway-client.js';
import type { RouteRegistry } from '../pipeline/routing.js';

/**
 * The real platform's orders API (docs/returns.md#the-orders-api): create, read and delete orders,
 * and their fulfillments with tracking. Each route runs one operation of the returns subgraph,
 * which serves the documents as JSON text.
 */
const TAG = 'Orders';
const BODY_LIMIT = 1024 * 1024;

const CREATE_ORDER = operation(`
  mutation CreateOrder($storeId: ID!, $input: JSON!) { createOrder(storeId: $storeId, input: $input) { id externalId } }`);

const GET_ORDER = operation(`
  query OrderByReference($storeId: ID!, $reference: String!) { orderByReference(storeId: $storeId, reference: $reference) { apiJson } }`);

const DELETE_ORDER = operation(`
  mutation DeleteOrder($storeId: ID!, $order: String!) { deleteOrder(storeId: $storeId, order: $order) { orderId externalOrderId } }`);

const CREATE_FULFILLMENT = operation(`
  mutation CreateFulfillment($storeId: ID!, $order: String!, $input: JSON!) {
    createFulfillment(storeId: $storeId, order: $order, input: $input) { created fulfillment { restJson } }
  }`);

const UPDATE_FULFILLMENT_STATUS = operation(`
  mutation UpdateFulfillmentStatus($storeId: ID!, $order: String!, $fulfillment: String!, $input: JSON!) {
    updateFulfillmentStatus(storeId: $storeId, order: $order, fulfillment: $fulfillment, input: $input) { restJson }
  }`);

export function registerOrderRoutes(routes: RouteRegistry): void {
  routes.add('POST', '/stores/:storeId/orders', {
    operationId: 'createOrder',
    tag: TAG,
    summary: 'Create an order (with its line items, customer and shipping)',
    description:
      "The real platform's orders API. Amounts are numbers in the order's currency (USD when `currencyCode` is absent); `totalTax`, and what `totalDiscount` exceeds the lines' own discounts by, are shared over the lines by value so returns refund each unit's share. An order with the same `orderId` already in the store is 409 (the custom orders endpoint upserts instead).",
    scope: 'orders_write',
    responses: { 200: { description: "The order was created: the service's id and yours.", schema: CreatedOrderSchema } },
    problems: { 409: ['order-exists'] },
    body: { limit: BODY_LIMIT, schema: CreateOrderSchema, checkedBy: 'graph' },
    handle: async ({ params, body, graphql }) => {
      const data = await graphql<{ createOrder: { id: string; externalId: string } }>(CREATE_ORDER, { storeId: params.storeId, input: body });
      return { status: 200, body: { orderId: data.createOrder.id, externalOrderId: data.createOrder.externalId } };
    },
  });

  routes.add('GET', '/stores/:storeId/orders/:orderId', {
    operationId: 'getOrder',
    tag: TAG,
    summary: 'An order with its fulfillments',
    description: '`orderId` is the order\'s id in this service (`ord_...`), its external id (the `orderId` it was created with), or its name (`#1001`), tried in that order. Any order of the store reads this way, whichever endpoint made it.',
    scope: 'orders_read',
    responses: { 200: { description: 'The order as created, with its fulfillments and their tracking history.', schema: OrdersApiOrderSchema } },
    problems: { 404: ['order-not-found'] },
    handle: async ({ params, graphql }) => {
      const data = await graphql<{ orderByReference: { apiJson: string } | null }>(GET_ORDER, { storeId: params.storeId, reference: params.orderId });
      if (!data.orderByReference) throw notFound('order-not-found', `No order ${params.orderId} in this store.`);
      return { status: 200, json: data.orderByReference.apiJson };
    },
  });

  routes.add('DELETE', '/stores/:storeId/orders/:orderId', {
    operationId: 'deleteOrder',
    tag: TAG,
    summary: 'Delete an order',
    description: "`orderId` is the service's id or the external id. The order goes with its lines and fulfillments (`order.deleted` is published); an order that returns were made against is kept (409).",
    scope: 'orders_write',
    responses: { 200: { description: 'The order was deleted.', schema: DeletedOrderSchema } },
    problems: { 404: ['order-not-found'], 409: ['order-has-returns'] },
    handle: async ({ params, graphql }) => {
      const data = await graphql<{ deleteOrder: { orderId: string; externalOrderId: string } }>(DELETE_ORDER, { storeId: params.storeId, order: params.orderId });
      return { status: 200, body: { success: true, ...data.deleteOrder } };
    },
  });

  routes.add('POST', '/stores/:storeId/orders/:orderId/fulfillments', {
    operationId: 'createFulfillment',
    tag: TAG,
    summary: 'Fulfil line items of an order, with tracking',
    description:
      "`orderId` is the service's id or the external id. Lines are named by their id (`lineItems[].id` of the order); more units than are left to fulfil, or a line not on the order, is 400 and nothing is written. Once an order reports fulfillments, its returns may take back only fulfilled units. The same `fulfillmentId` again with the same units answers that fulfillment (a retry); with other units it is 409. The service calls no carrier: tracking moves by shipment-status updates (`useDummyTracking` applies `initialTracking`).",
    scope: 'orders_write',
    responses: { 200: { description: 'The fulfillment.', schema: FulfillmentResultSchema } },
    problems: { 404: ['order-not-found'], 409: ['fulfillment-exists'] },
    body: { limit: BODY_LIMIT, schema: CreateFulfillmentSchema, checkedBy: 'graph' },
    handle: async ({ params, body, graphql }) => {
      const data = await graphql<{ createFulfillment: { fulfillment: { restJson: string } } }>(CREATE_FULFILLMENT, { storeId: params.storeId, order: params.orderId, input: body });
      return { status: 200, json: `{"success":true,"fulfillment":${data.createFulfillment.fulfillment.restJson}}` };
    },
  });

  routes.add('POST', '/stores/:storeId/orders/:orderId/fulfillments/:fulfillmentId/shipment-status', {
    operationId: 'updateFulfillmentStatus',
    tag: TAG,
    summary: "Post a carrier update of a fulfillment's shipment",
    description:
      'A status (`in_transit`, `delivered`, ...) becomes the current status unless an update with a later `datetime` already set it (carriers report out of order); an event (`stalled_in_transit`, `delayed`, `arriving_early`) changes no status. Either may set the estimated delivery date, and each adds one entry to the tracking history (`message` defaults to the status in words, `datetime` to now).',
    scope: 'orders_write',
    responses: { 200: { description: 'The fulfillment after the update.', schema: FulfillmentResultSchema } },
    problems: { 404: ['order-not-found', 'fulfillment-not-found'] },
    body: { limit: BODY_LIMIT, schema: FulfillmentStatusSchema, checkedBy: 'graph' },
    handle: async ({ params, body, graphql }) => {
      const data = await graphql<{ updateFulfillmentStatus: { restJson: string } }>(UPDATE_FULFILLMENT_STATUS, {
        storeId: params.storeId,
        order: params.orderId,
        fulfillment: params.fulfillmentId,
        input: body,
      });
      return { status: 200, json: `{"success":true,"fulfillment":${data.updateFulfillmentStatus.restJson}}` };
    },
  });
}
