import { defineEntity, p } from '@mikro-orm/postgresql';

export const ReturnEntity = defineEntity({
  name: 'Return',
  tableName: 'return',
  properties: {
    id: p.string().primary(),
    storeId: p.string(),
    compatId: p.bigint().nullable(),
    orderId: p.string(),
    orderName: p.string(),
    status: p.string(),
    type: p.string(),
    provider: p.string(),
    currency: p.string(),
    source: p.json(),
    destination: p.json(),
    notes: p.text().nullable(),
    compensationMethods: p.array(),
    shipment: p.json().nullable(),
    shipments: p.json(),
    shipmentRecorded: p.boolean(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    closedAt: p.datetime().nullable(),
    version: p.integer(),
  },
});

export const ReturnItemEntity = defineEntity({
  name: 'ReturnItem',
  tableName: 'return_item',
  properties: {
    id: p.string().primary(),
    returnId: p.string(),
    orderLineItemId: p.string(),
    position: p.integer(),
    quantity: p.integer(),
    reason: p.text(),
    reasonCode: p.string().nullable(),
    customerComment: p.text().nullable(),
    compensation: p.string(),
    refundAmount: p.decimal(),
    productValue: p.decimal(),
    status: p.string(),
  },
});

export const ReturnCommentEntity = defineEntity({
  name: 'ReturnComment',
  tableName: 'return_comment',
  properties: {
    id: p.string().primary(),
    returnId: p.string(),
    message: p.text(),
    createdAt: p.datetime(),
  },
});

export const StoreSettingsEntity = defineEntity({
  name: 'StoreSettings',
  tableName: 'store_settings',
  properties: {
    storeId: p.string().primary(),
    returnLocationId: p.string().nullable(),
    requireReturnApproval: p.boolean(),
    returnAddress: p.json().nullable(),
    returnPhoneNumber: p.string().nullable(),
    updatedAt: p.datetime(),
  },
});
