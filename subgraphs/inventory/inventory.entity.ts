import { defineEntity, p } from '@mikro-orm/postgresql';

/*
 * The stored shapes (the migrations are the source of truth; reads and writes
 * go through set-based SQL in the services and views).
 */
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

/** One (product or sku, kind, lot) of a store; `quantity` is the sum of its levels. */
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
    expirationDate: p.string().nullable(),
    quantity: p.integer(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

/** Units of an item at one location, with copies of the item's list keys. */
export const InventoryLevelEntity = defineEntity({
  name: 'InventoryLevel',
  tableName: 'inventory_level',
  properties: {
    itemId: p.string().primary(),
    locationId: p.string().primary(),
    storeId: p.string(),
    kind: p.string(),
    sku: p.string(),
    lotNumber: p.string(),
    quantity: p.integer(),
    itemUpdatedAt: p.datetime(),
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
    shipmentId: p.string().nullable(),
    carrier: p.string().nullable(),
    trackingNumber: p.string().nullable(),
    trackingUrl: p.string().nullable(),
    estimatedArrivalDate: p.string().nullable(),
    actualArrivalDate: p.string().nullable(),
    freightType: p.string().nullable(),
    paymentTerms: p.string().nullable(),
    freightCostAmount: p.string().nullable(),
    freightCostCurrency: p.string().nullable(),
    dutyCostAmount: p.string().nullable(),
    dutyCostCurrency: p.string().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export const InboundShipmentItemEntity = defineEntity({
  name: 'InboundShipmentItem',
  tableName: 'inbound_shipment_item',
  properties: {
    id: p.string().primary(),
    shipmentId: p.string(),
    position: p.integer(),
    productId: p.string(),
    quantity: p.integer(),
    receivedQuantity: p.integer(),
    damagedQuantity: p.integer(),
    missingQuantity: p.integer(),
  },
});

/** One row per restocked return item: the exactly-once key of restock. */
export const RestockLedgerEntity = defineEntity({
  name: 'RestockLedger',
  tableName: 'restock_ledger',
  properties: {
    returnItemId: p.string().primary(),
    storeId: p.string(),
    returnId: p.string(),
    eventId: p.string(),
    inventoryItemId: p.string().nullable(),
    locationId: p.string().nullable(),
    quantity: p.integer(),
    createdAt: p.datetime(),
  },
});
