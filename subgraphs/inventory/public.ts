/**
 * What the rest of the system may use of the inventory subgraph: its event
 * contracts, the schemas of its REST queries and documents, and the document
 * pages webhook backfills read. Everything else is internal.
 */
export { INVENTORY_EVENTS, InboundShipmentCreated, InboundShipmentUpdated, InventoryItemCreated, InventoryItemUpdated, ProductUpserted, type ProductEventData } from './inventory.events.js';
export { InboundShipmentListQuerySchema } from './inbound-shipment.schemas.js';
export { InventoryItemListQuerySchema } from './inventory-item.schemas.js';
export { InventoryLevelListQuerySchema } from './inventory-level.schemas.js';
export { InboundShipmentDetailSchema, InboundShipmentDocumentSchema, InboundShipmentListSchema, inboundShipmentDocumentsPage } from './inbound-shipment.json.js';
export { InventoryItemDocumentSchema, InventoryItemListSchema, inventoryItemDocumentsPage } from './inventory-item.json.js';
export { InventoryLevelDetailSchema, InventoryLevelListSchema } from './inventory-level.json.js';
