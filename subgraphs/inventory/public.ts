/**
 * What the rest of the system may use of the inventory subgraph: its event
 * contracts and the schemas of its REST queries and documents. Everything else is internal.
 */
export { INVENTORY_EVENTS, InboundShipmentCreated, InboundShipmentUpdated, InventoryItemCreated, InventoryItemUpdated, ProductUpserted, type ProductEventData } from './inventory.events.js';
export { InboundShipmentListQuerySchema, InventoryItemListQuerySchema, InventoryLevelListQuerySchema } from './inventory.schemas.js';
export { InboundShipmentDetailSchema, InboundShipmentDocumentSchema, InboundShipmentListSchema, InventoryItemDocumentSchema, InventoryItemListSchema, InventoryLevelDetailSchema, InventoryLevelListSchema } from './inventory.json.js';
export { inboundShipmentDocumentsPage, inventoryItemDocumentsPage } from './inventory.backfill.js';
