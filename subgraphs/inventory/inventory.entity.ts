import { defineEntity, p } from '@mikro-orm/postgresql';

export const LocationEntity = defineEntity({
  name: 'Location',
  tableName: 'location',
  properties: {
    id: p.string().primary(),
    storeId: p.string(),
    name: p.string(),
    externalId: p.string().nullable(),
    createdAt: p.datetime(),
  },
});

export const ProductEntity = defineEntity({
  name: 'Product',
  tableName: 'product',
  properties: {
    id: p.string().primary(),
    storeId: p.string(),
    sku: p.string(),
    title: p.string(),
    variantTitle: p.string().nullable(),
    upc: p.string().nullable(),
    imageUrl: p.string().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export const InventoryItemEntity = defineEntity({
  name: 'InventoryItem',
  tableName: 'inventory_item',
  properties: {
    id: p.string().primary(),
    storeId: p.string(),
    productId: p.string().nullable(),
    sku: p.string(),
    name: p.string(),
    kind: p.string(),
    lotNumber: p.string(),
    quantity: p.integer(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export const InboundShipmentEntity = defineEntity({
  name: 'InboundShipment',
  tableName: 'inbound_shipment',
  properties: {
    id: p.string().primary(),
    storeId: p.string(),
    locationId: p.string(),
    status: p.string(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
