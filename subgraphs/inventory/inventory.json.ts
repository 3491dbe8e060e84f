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

const iso = (value: Date | string) => (value instanceof Date ? value.toISOString() : value);

export function inventoryItemJson(item: InventoryItemIn) {
  return {
    id: item.id,
    sku: item.sku,
    name: item.name,
    kind: item.kind,
    quantity: item.quantity,
    locations: item.locations.map((l) => ({ location_id: l.locationId, location_name: l.locationName, quantity: l.quantity })),
    created_at: iso(item.createdAt),
    updated_at: iso(item.updatedAt),
  };
}

export function inboundShipmentJson(s: InboundShipmentIn) {
  return {
    id: s.id,
    shipment_id: s.shipmentId,
    status: s.status,
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
