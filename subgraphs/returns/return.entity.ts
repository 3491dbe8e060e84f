import { defineEntity, p } from '@mikro-orm/postgresql';

export const ReturnEntity = defineEntity({
  name: 'Return',
  tableName: 'return',
  properties: {
    id: p.string().primary(),
    storeId: p.string(),
    orderId: p.string(),
    status: p.string(),
    type: p.string(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
