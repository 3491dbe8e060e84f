import { outboxContract } from '../../platform/jobs/outbox.js';
import { DateTime, OrNull, Strict, Type } from '../../platform/validation/index.js';
import { InboundShipmentDocumentSchema } from './inbound-shipment.json.js';
import { InventoryItemDocumentSchema } from './inventory-item.json.js';

/** The payloads of the events the inventory subgraph publishes (version 1): the REST documents of what changed. */
const InboundShipmentEventDataSchema = Strict({ inbound_shipment: InboundShipmentDocumentSchema });

const InventoryItemEventDataSchema = Strict({ inventory_item: InventoryItemDocumentSchema });

export const InboundShipmentCreated = outboxContract('inbound_shipment.created', 'inbound_shipment', 1, InboundShipmentEventDataSchema);
/** Every committed change of a shipment (transit, receipts). */
export const InboundShipmentUpdated = outboxContract('inbound_shipment.updated', 'inbound_shipment', 1, InboundShipmentEventDataSchema);
export const InventoryItemCreated = outboxContract('inventory_item.created', 'inventory_item', 1, InventoryItemEventDataSchema);
/** Every committed change of an item's stock or name. */
export const InventoryItemUpdated = outboxContract('inventory_item.updated', 'inventory_item', 1, InventoryItemEventDataSchema);

/** A product's facts other subgraphs keep a copy of (the returns subgraph shows the UPC on return items and names imported returns' products). */
const ProductEventDataSchema = Strict({
  product: Strict({
    id: Type.String(),
    sku: Type.String(),
    upc: OrNull(Type.String()),
    updatedAt: DateTime(),
    // Added later (events from before lack them): what an imported return's items are called.
    title: Type.Optional(Type.String()),
    variantTitle: Type.Optional(OrNull(Type.String())),
  }),
});

/** Every create or update of a product (no webhook topic carries it). */
export const ProductUpserted = outboxContract('product.upserted', 'product', 1, ProductEventDataSchema);

export const INVENTORY_EVENTS = [InboundShipmentCreated, InboundShipmentUpdated, InventoryItemCreated, InventoryItemUpdated, ProductUpserted] as const;
