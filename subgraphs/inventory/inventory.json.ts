import { Int, MoneyDocument, OneOf, OrNull, Strict, Type, type Static } from '../../platform/validation/index.js';
import { InboundShipmentStatus, InventoryKind } from './inventory.values.js';

/**
 * The REST shapes of service-spec.md (snake_case, exactly the fields of its
 * tables). One definition for the `/v2.2` responses and the outbox events, so
 * webhooks carry what the API shows. Input: the GraphQL field shapes.
 */
interface TimestampsIn {
  createdAt: Date | string;
  updatedAt: Date | string;
}

export interface InventoryItemIn extends TimestampsIn {
  id: string;
  sku: string;
  name: string;
  kind: string;
  quantity: number;
  locations: { locationId: string; locationName: string; quantity: number }[];
}

export interface InboundShipmentIn extends TimestampsIn {
  id: string;
  shipmentId: string | null;
  status: string;
  location: { id: string; name: string };
  carrier: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
  estimatedArrivalDate: string | null;
  actualArrivalDate: string | null;
  freightType: string | null;
  paymentTerms: string | null;
  freightCost: { amount: string; currency: string } | null;
  dutyCost: { amount: string; currency: string } | null;
  items: {
    id: string;
    product: { id: string; title: string; sku: string; imageUrl: string | null };
    quantity: number;
    receivedQuantity: number;
    damagedQuantity: number;
    missingQuantity: number;
  }[];
  skuCount: number;
  itemCount: number;
  receivedCount: number;
}

const Str = Type.String();
const NullableStr = OrNull(Type.String());
const Timestamp = Type.String({ format: 'date-time' });
const Count = Int({ min: 0 });
const MoneySchema = MoneyDocument;

/**
 * The published schemas of these documents (the API reference): the builders
 * below are typed by them, and the contract test checks every response.
 */
export const InventoryItemDocumentSchema = Strict(
  {
    id: Str,
    sku: Str,
    name: Type.String({ description: 'The product title, then " - " and the variant title when there is one.' }),
    kind: OneOf(Object.values(InventoryKind)),
    quantity: Type.Integer({ description: 'On hand: the sum of the locations, or the quantity at `location_id` when the list is filtered by it.' }),
    locations: Type.Array(Strict({ location_id: Str, location_name: Str, quantity: Type.Integer() })),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'InventoryItem' },
);

export const InboundShipmentDocumentSchema = Strict(
  {
    id: Str,
    shipment_id: NullableStr,
    status: OneOf(Object.values(InboundShipmentStatus)),
    location: Strict({ id: Str, name: Str }),
    carrier: NullableStr,
    tracking_number: NullableStr,
    tracking_url: NullableStr,
    estimated_arrival_date: OrNull(Type.String({ format: 'date' })),
    actual_arrival_date: OrNull(Type.String({ format: 'date' })),
    freight_type: NullableStr,
    payment_terms: NullableStr,
    freight_cost: OrNull(MoneySchema),
    duty_cost: OrNull(MoneySchema),
    items: Type.Array(
      Strict({
        id: Type.String({ description: 'The line id (`itemId` of receiveInboundShipment).' }),
        product: Strict({ id: Str, title: Str, sku: Str, image_url: NullableStr }),
        quantity: Count,
        received_quantity: Count,
        damaged_quantity: Count,
        missing_quantity: Count,
      }),
    ),
    sku_count: Count,
    item_count: Count,
    received_count: Count,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'InboundShipment' },
);

export const InventoryItemListSchema = Strict({ inventory_items: Type.Array(InventoryItemDocumentSchema) }, { title: 'InventoryItemList' });
export const InboundShipmentListSchema = Strict({ inbound_shipments: Type.Array(InboundShipmentDocumentSchema) }, { title: 'InboundShipmentList' });

export type InventoryItemDocument = Static<typeof InventoryItemDocumentSchema>;
export type InboundShipmentDocument = Static<typeof InboundShipmentDocumentSchema>;

const iso = (value: Date | string) => (value instanceof Date ? value.toISOString() : value);

export function inventoryItemJson(item: InventoryItemIn): InventoryItemDocument {
  return {
    id: item.id,
    sku: item.sku,
    name: item.name,
    kind: item.kind as InventoryKind,
    quantity: item.quantity,
    locations: item.locations.map((l) => ({ location_id: l.locationId, location_name: l.locationName, quantity: l.quantity })),
    created_at: iso(item.createdAt),
    updated_at: iso(item.updatedAt),
  };
}

export function inboundShipmentJson(s: InboundShipmentIn): InboundShipmentDocument {
  return {
    id: s.id,
    shipment_id: s.shipmentId,
    status: s.status as InboundShipmentStatus,
    location: { id: s.location.id, name: s.location.name },
    carrier: s.carrier,
    tracking_number: s.trackingNumber,
    tracking_url: s.trackingUrl,
    estimated_arrival_date: s.estimatedArrivalDate,
    actual_arrival_date: s.actualArrivalDate,
    freight_type: s.freightType,
    payment_terms: s.paymentTerms,
    freight_cost: s.freightCost ? { amount: s.freightCost.amount, currency: s.freightCost.currency } : null,
    duty_cost: s.dutyCost ? { amount: s.dutyCost.amount, currency: s.dutyCost.currency } : null,
    items: s.items.map((i) => ({
      id: i.id,
      product: { id: i.product.id, title: i.product.title, sku: i.product.sku, image_url: i.product.imageUrl },
      quantity: i.quantity,
      received_quantity: i.receivedQuantity,
      damaged_quantity: i.damagedQuantity,
      missing_quantity: i.missingQuantity,
    })),
    sku_count: s.skuCount,
    item_count: s.itemCount,
    received_count: s.receivedCount,
    created_at: iso(s.createdAt),
    updated_at: iso(s.updatedAt),
  };
}
