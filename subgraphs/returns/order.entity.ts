import { defineEntity, p } from '@mikro-orm/postgresql';

/** An order pushed in by a commerce platform (or the custom orders endpoint); returns are made against it. */
export const OrderEntity = defineEntity({
  name: 'Order',
  tableName: 'order',
  properties: {
    id: p.string().primary(),
    storeId: p.string(),
    provider: p.string(),
    externalId: p.string(),
    name: p.string(),
    currency: p.string(),
    customerEmail: p.string().nullable(),
    customerPhone: p.string().nullable(),
    customerFirstName: p.string().nullable(),
    customerLastName: p.string().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
