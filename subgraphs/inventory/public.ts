/**
 * What the rest of the system may use of the inventory subgraph: its event
 * contracts and the schemas of its REST queries and documents. Everything else
 * is internal.
 */
export { InboundShipmentCreated, InboundShipmentUpdated, InventoryItemCreated, InventoryItemUpdated, ProductUpserted } from './inventory.events.js';
export { InboundShipmentListQuerySchema } from './inbound-shipment.schemas.js';
export { InventoryItemListQuerySchema } from './inventory-item.schemas.js';
export { InventoryLevelListQuerySchema } from './inventory-level.schemas.js';
export { InboundShipmentDetailSchema, InboundShipmentListSchema } from './inbound-shipment.json.js';
export { InventoryItemDocumentSchema, InventoryItemListSchema } from './inventory-item.json.js';
export { InventoryLevelDetailSchema, InventoryLevelListSchema } from './inventory-level.json.js';
