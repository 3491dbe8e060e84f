import { outboxContract } from '../../platform/outbox.js';
import type { inboundShipmentJson } from './inbound-shipment.json.js';
import type { inventoryItemJson } from './inventory-item.json.js';

/** The events the inventory subgraph publishes (version 1): the REST documents of what changed. */
export interface InboundShipmentEventData {
  inbound_shipment: ReturnType<typeof inboundShipmentJson>;
}

export interface InventoryItemEventData {
  inventory_item: ReturnType<typeof inventoryItemJson>;
}

export const InboundShipmentCreated = outboxContract<InboundShipmentEventData>()('inbound_shipment.created', 'inbound_shipment');
/** Every committed change of a shipment (transit, receipts). */
export const InboundShipmentUpdated = outboxContract<InboundShipmentEventData>()('inbound_shipment.updated', 'inbound_shipment');
export const InventoryItemCreated = outboxContract<InventoryItemEventData>()('inventory_item.created', 'inventory_item');
/** Every committed change of an item's stock or name. */
export const InventoryItemUpdated = outboxContract<InventoryItemEventData>()('inventory_item.updated', 'inventory_item');

/** A product's facts other subgraphs keep a copy of (the returns subgraph shows the UPC on return items). */
export interface ProductEventData {
  product: { id: string; sku: string; upc: string | null; updatedAt: string };
}

/** Every create or update of a product (no webhook topic carries it). */
export const ProductUpserted = outboxContract<ProductEventData>()('product.upserted', 'product');

export const INVENTORY_EVENTS = [InboundShipmentCreated, InboundShipmentUpdated, InventoryItemCreated, InventoryItemUpdated, ProductUpserted] as const;
