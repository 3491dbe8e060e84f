import { outboxContract } from '../../platform/outbox.js';
import type { inboundShipmentJson, inventoryItemJson } from './inventory.json.js';

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

export const INVENTORY_EVENTS = [InboundShipmentCreated, InboundShipmentUpdated, InventoryItemCreated, InventoryItemUpdated] as const;
