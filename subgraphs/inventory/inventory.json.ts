import { money } from '../../platform/money.js';
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
  lotNumber: string | null;
  expirationDate: string | null;
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
    product: { id: string; title: string; sku: string; imageUrl: string | null; upc: string | null };
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
const LevelCount = Type.Integer({ minimum: 0 });
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
    lot_number: OrNull(Type.String({ description: 'The lot the units belong to; null for stock without a lot.' })),
    expiration_date: OrNull(Type.String({ format: 'date', description: "The lot's expiration date, when known." })),
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
    // Zero in the shipment's currency when not given (the real platform's schema requires both).
    freight_cost: MoneySchema,
    duty_cost: MoneySchema,
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

const ShipmentLine = InboundShipmentDocumentSchema.properties.items.items;
const OrderRef = Strict({ id: Str, name: Str });

/**
 * One shipment with the detail fields of the real platform's schema: per line
 * the product's UPC and the discrepancy (units not received in good shape),
 * and the damaged and missing totals. The service keeps no purchase orders,
 * transfer orders, files or volume: empty lists and null.
 */
export const InboundShipmentDetailSchema = Strict(
  {
    ...InboundShipmentDocumentSchema.properties,
    items: Type.Array(
      Strict({
        ...ShipmentLine.properties,
        product: Strict({ ...ShipmentLine.properties.product.properties, upc: NullableStr }),
        discrepancy: Type.Integer({ minimum: 0, description: 'Expected units less received ones (damaged, missing or still due).' }),
      }),
    ),
    custom_volume_cubic_meters: Type.Null(),
    purchase_orders: Type.Array(OrderRef, { maxItems: 0 }),
    transfer_orders: Type.Array(OrderRef, { maxItems: 0 }),
    files: Type.Array(Strict({ id: Str, title: Str, url: Str, content_type: Str, created_at: Timestamp }), { maxItems: 0 }),
    damaged_count: Count,
    missing_count: Count,
  },
  { title: 'InboundShipmentDetail' },
);

/**
 * A level (the real platform's inventory level): the service reserves and
 * commits nothing, so everything on hand is available.
 */
export const InventoryLevelDocumentSchema = Strict(
  {
    id: Str,
    product: Strict({ id: Str, title: Str, sku: Str }),
    location: Strict({ id: Str, name: Str }),
    // Sums of several items' stock: beyond what one item holds (2^31 - 1).
    quantity: LevelCount,
    available: LevelCount,
    committed: LevelCount,
    reserved: LevelCount,
    buildable: LevelCount,
    total_available: LevelCount,
    updated_at: Timestamp,
  },
  { title: 'InventoryLevel' },
);

export const InventoryLevelDetailSchema = Strict(
  {
    ...InventoryLevelDocumentSchema.properties,
    product: Strict({ id: Str, title: Str, sku: Str, upc: NullableStr, image_url: NullableStr }),
    external_ids: Type.Null({ description: 'The service keeps no external ids of levels.' }),
    created_at: Timestamp,
  },
  { title: 'InventoryLevelDetail' },
);

export const InventoryLevelListSchema = Strict({ inventory_levels: Type.Array(InventoryLevelDocumentSchema) }, { title: 'InventoryLevelList' });

export const InventoryItemListSchema = Strict({ inventory_items: Type.Array(InventoryItemDocumentSchema) }, { title: 'InventoryItemList' });
export const InboundShipmentListSchema = Strict({ inbound_shipments: Type.Array(InboundShipmentDocumentSchema) }, { title: 'InboundShipmentList' });

export type InventoryItemDocument = Static<typeof InventoryItemDocumentSchema>;
export type InboundShipmentDocument = Static<typeof InboundShipmentDocumentSchema>;
export type InboundShipmentDetail = Static<typeof InboundShipmentDetailSchema>;

const iso = (value: Date | string) => (value instanceof Date ? value.toISOString() : value);

export function inventoryItemJson(item: InventoryItemIn): InventoryItemDocument {
  return {
    id: item.id,
    sku: item.sku,
    name: item.name,
    kind: item.kind as InventoryKind,
    lot_number: item.lotNumber,
    expiration_date: item.expirationDate,
    quantity: item.quantity,
    locations: item.locations.map((l) => ({ location_id: l.locationId, location_name: l.locationName, quantity: l.quantity })),
    created_at: iso(item.createdAt),
    updated_at: iso(item.updatedAt),
  };
}

/** The shipment's currency: that of its costs; USD when it has none. */
const shipmentCurrency = (s: InboundShipmentIn) => s.freightCost?.currency ?? s.dutyCost?.currency ?? 'USD';
const moneyOrZero = (m: { amount: string; currency: string } | null, currency: string) => (m ? { amount: m.amount, currency: m.currency } : money(0, currency));

export function inboundShipmentDetailJson(s: InboundShipmentIn): InboundShipmentDetail {
  const doc = inboundShipmentJson(s);
  return {
    ...doc,
    items: doc.items.map((line, i) => ({
      ...line,
      product: { ...line.product, upc: s.items[i]!.product.upc },
      discrepancy: line.quantity - line.received_quantity,
    })),
    custom_volume_cubic_meters: null,
    purchase_orders: [],
    transfer_orders: [],
    files: [],
    damaged_count: s.items.reduce((n, i) => n + i.damagedQuantity, 0),
    missing_count: s.items.reduce((n, i) => n + i.missingQuantity, 0),
  };
}

export function inboundShipmentJson(s: InboundShipmentIn): InboundShipmentDocument {
  const currency = shipmentCurrency(s);
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
    freight_cost: moneyOrZero(s.freightCost, currency),
    duty_cost: moneyOrZero(s.dutyCost, currency),
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

export interface InventoryLevelIn extends TimestampsIn {
  id: string;
  product: { id: string; title: string; sku: string; upc: string | null; imageUrl: string | null };
  location: { id: string; name: string };
  quantity: number;
}

export function inventoryLevelJson(level: InventoryLevelIn): Static<typeof InventoryLevelDocumentSchema> {
  return {
    id: level.id,
    product: { id: level.product.id, title: level.product.title, sku: level.product.sku },
    location: { id: level.location.id, name: level.location.name },
    quantity: level.quantity,
    available: level.quantity,
    committed: 0,
    reserved: 0,
    buildable: 0,
    total_available: level.quantity,
    updated_at: iso(level.updatedAt),
  };
}

export function inventoryLevelDetailJson(level: InventoryLevelIn): Static<typeof InventoryLevelDetailSchema> {
  const doc = inventoryLevelJson(level);
  return {
    ...doc,
    product: { ...doc.product, upc: level.product.upc, image_url: level.product.imageUrl },
    external_ids: null,
    created_at: iso(level.createdAt),
  };
}
