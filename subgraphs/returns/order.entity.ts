import { defineEntity, p } from '@mikro-orm/postgresql';

/** An order pushed in by a commerce platform (or the custom orders endpoint); returns are made against its lines. */
export const OrderEntity = defineEntity({
  name: 'Order',
  tableName: 'order',
  properties: {
    id: p.string().primary(),
    storeId: p.string(),
    compatId: p.bigint().nullable(),
    provider: p.string(),
    externalId: p.string(),
    name: p.string(),
    currency: p.string(),
    customerEmail: p.string().nullable(),
    customerPhone: p.string().nullable(),
    customerFirstName: p.string().nullable(),
    customerLastName: p.string().nullable(),
    shippingCost: p.decimal(),
    shippingAddress: p.json().nullable(),
    fulfillmentLocationId: p.string().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

/** One line of an order: what was bought, at which unit price, with the line's tax and discount. */
export const OrderLineItemEntity = defineEntity({
  name: 'OrderLineItem',
  tableName: 'order_line_item',
  properties: {
    id: p.string().primary(),
    orderId: p.string(),
    externalId: p.string(),
    position: p.integer(),
    productId: p.string().nullable(),
    variantId: p.string().nullable(),
    sku: p.string().nullable(),
    title: p.string().nullable(),
    variantTitle: p.string().nullable(),
    quantity: p.integer(),
    price: p.decimal(),
    tax: p.decimal(),
    discount: p.decimal(),
    weightKg: p.decimal().nullable(),
    removedAt: p.datetime().nullable(),
  },
});
