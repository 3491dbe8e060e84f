import { DateTime, Int, Num, OneOf, OrNull, Strict, Type, type Static } from '../../platform/validation/index.js';
import { FULFILLMENT_STATUSES } from './fulfillment.rules.js';
import type { FulfillmentRow } from './fulfillment.rows.js';
import type { Address } from './order.rows.js';
import type { OrderView } from './order.view.js';

/**
 * The documents of the real platform's orders API: an order as `GET /stores/{storeId}/orders/{orderId}`
 * reads it (its create body, then its fulfillments), the answers of the other operations, and the
 * payload of the `order` events and webhooks. Any order reads this way, whichever API made it.
 *
 * The schema lets every optional field be `null`: a value the service does not know is `null`,
 * never a guess, except what it keeps in another form (an order without a stated currency is USD,
 * a line without a stated price costs 0).
 */
const Str = Type.String();
const NullStr = OrNull(Str);
const NullAmount = OrNull(Num({ min: 0 }));

const OrdersApiAddressDocument = Strict(
  { address1: NullStr, address2: NullStr, city: NullStr, province: NullStr, country: NullStr, postalCode: NullStr },
  { title: 'OrdersApiAddress' },
);

const TrackingEventDocument = Strict(
  {
    message: Str,
    status: Type.String({ description: 'The status or event posted.' }),
    datetime: DateTime(),
    location: Type.Optional(Strict({ city: NullStr, state: NullStr, country: NullStr, postalCode: NullStr })),
  },
  { title: 'TrackingEvent' },
);

const FulfillmentDocumentSchema = Strict(
  {
    id: Type.String({ description: 'The id you gave the fulfillment, else the one the service made.' }),
    createdAt: DateTime(),
    lineItems: Type.Array(Strict({ id: Str, quantity: Int({ min: 1 }), title: Str, productId: Str, variantId: NullStr, sku: NullStr })),
    trackingCompany: NullStr,
    trackingNumber: NullStr,
    status: OneOf(FULFILLMENT_STATUSES),
    estimatedDeliveryDate: OrNull(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' })),
    deliveredAt: OrNull(DateTime()),
    trackingHistory: Type.Array(TrackingEventDocument, { description: 'Oldest first, by the carrier\'s time.' }),
  },
  { title: 'Fulfillment' },
);
export type FulfillmentDocument = Static<typeof FulfillmentDocumentSchema>;

export const OrdersApiOrderSchema = Strict(
  {
    orderId: Type.String({ description: 'The order id on your platform (its external id).' }),
    createdAt: DateTime(),
    lineItems: Type.Array(
      Strict({
        id: Str,
        productId: Type.String({ description: 'Empty when the order line names no product.' }),
        variantId: NullStr,
        title: Str,
        sku: NullStr,
        quantity: Int({ min: 1 }),
        price: NullAmount,
        imageUrl: NullStr,
        discount: NullAmount,
      }),
    ),
    customer: Strict({ id: NullStr, email: NullStr, phoneNumber: NullStr, name: NullStr, firstName: NullStr, lastName: NullStr }),
    shipping: Strict({ method: NullStr, cost: NullAmount, address: Type.Optional(OrdersApiAddressDocument) }),
    totalPrice: NullAmount,
    subtotalPrice: NullAmount,
    totalTax: NullAmount,
    totalDiscount: NullAmount,
    billingAddress: Type.Optional(OrdersApiAddressDocument),
    tags: OrNull(Type.Array(Str)),
    currencyCode: NullStr,
    locationId: NullStr,
    fulfillments: Type.Array(FulfillmentDocumentSchema),
  },
  { title: 'OrdersApiOrder' },
);
export type OrdersApiOrder = Static<typeof OrdersApiOrderSchema>;

export const CreatedOrderSchema = Strict({ orderId: Type.String({ description: "The service's order id." }), externalOrderId: Type.String({ description: 'The orderId you sent.' }) }, { title: 'CreatedOrder' });
export const DeletedOrderSchema = Strict(
  { success: Type.Boolean(), orderId: Type.String({ description: "The service's order id." }), externalOrderId: Type.String() },
  { title: 'DeletedOrder' },
);
export const FulfillmentResultSchema = Strict({ success: Type.Literal(true), fulfillment: FulfillmentDocumentSchema }, { title: 'FulfillmentResult' });

const amount = (value: string | null): number | null => (value === null ? null : Number(value));

function addressDocument(a: Address | null): Static<typeof OrdersApiAddressDocument> | undefined {
  if (!a) return undefined;
  return { address1: a.line1, address2: a.line2, city: a.city, province: a.state, country: a.country, postalCode: a.postalCode };
}

export function fulfillmentDocument(f: FulfillmentRow): FulfillmentDocument {
  return {
    id: f.externalId,
    createdAt: new Date(f.createdAt).toISOString(),
    lineItems: f.lines.map((l) => ({ id: l.lineExternalId, quantity: l.quantity, title: l.title ?? l.sku ?? '', productId: l.productId ?? '', variantId: l.variantId, sku: l.sku })),
    trackingCompany: f.trackingCompany,
    trackingNumber: f.trackingNumber,
    status: f.status,
    estimatedDeliveryDate: f.estimatedDeliveryDate,
    deliveredAt: f.deliveredAt === null ? null : new Date(f.deliveredAt).toISOString(),
    trackingHistory: f.events.map((e) => ({
      message: e.message,
      status: e.status,
      datetime: new Date(e.at).toISOString(),
      ...(e.location ? { location: { city: e.location.city ?? null, state: e.location.state ?? null, country: e.location.country ?? null, postalCode: e.location.postalCode ?? null } } : {}),
    })),
  };
}

export function ordersApiOrder(view: OrderView, fulfillments: readonly FulfillmentRow[]): OrdersApiOrder {
  return {
    orderId: view.externalId,
    createdAt: view.createdAt.toISOString(),
    lineItems: view.items.map((item) => ({
      id: item.externalId,
      productId: item.product.externalId ?? '',
      variantId: item.variant.externalId,
      title: item.product.name ?? item.variant.sku ?? '',
      sku: item.variant.sku,
      quantity: item.quantity,
      price: amount(item.exact.price),
      imageUrl: item.imageUrl,
      discount: amount(item.exact.statedDiscount),
    })),
    customer: {
      id: view.api.customerExternalId,
      email: view.customer.emailAddress,
      phoneNumber: view.customer.phoneNumber,
      name: view.api.customerName,
      firstName: view.customer.name.given,
      lastName: view.customer.name.surname,
    },
    shipping: { method: view.api.shippingMethod, cost: amount(view.api.shippingCost), address: addressDocument(view.shippingAddress) },
    totalPrice: amount(view.api.totalPrice),
    subtotalPrice: amount(view.api.subtotalPrice),
    totalTax: amount(view.api.totalTax),
    totalDiscount: amount(view.api.totalDiscount),
    billingAddress: addressDocument(view.api.billingAddress),
    tags: view.api.tags,
    currencyCode: view.currency,
    locationId: view.fulfillmentLocationId,
    fulfillments: fulfillments.map(fulfillmentDocument),
  };
}
