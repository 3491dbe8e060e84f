import type { Orm } from '../../platform/db/orm.js';
import { money, type Money } from '../../platform/money.js';
import { DateTime, Int, MoneyDocument, OneOf, OrNull, Strict, Type, type Static } from '../../platform/validation/index.js';
import { shipmentIdsAfter } from './inbound-shipment.rows.js';
import { discrepancy, InboundShipmentStatus, shipmentCurrency } from './inbound-shipment.rules.js';
import { loadShipments, type InboundShipmentView } from './inbound-shipment.view.js';

const Str = Type.String();
const NullableStr = OrNull(Type.String());
const Count = Int({ min: 0 });

/**
 * The published REST documents of a shipment (service-spec.md, snake_case):
 * one definition for the `/v2.2` responses and the outbox events, so webhooks
 * carry what the API shows. The builders are typed by the schemas, and the
 * contract test checks every response against them.
 */
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
    freight_cost: MoneyDocument,
    duty_cost: MoneyDocument,
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
    created_at: DateTime(),
    updated_at: DateTime(),
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
    files: Type.Array(Strict({ id: Str, title: Str, url: Str, content_type: Str, created_at: DateTime() }), { maxItems: 0 }),
    damaged_count: Count,
    missing_count: Count,
  },
  { title: 'InboundShipmentDetail' },
);

export const InboundShipmentListSchema = Strict({ inbound_shipments: Type.Array(InboundShipmentDocumentSchema) }, { title: 'InboundShipmentList' });

export type InboundShipmentDocument = Static<typeof InboundShipmentDocumentSchema>;
export type InboundShipmentDetail = Static<typeof InboundShipmentDetailSchema>;

const moneyOrZero = (m: Money | null, currency: string) => (m ? { amount: m.amount, currency: m.currency } : money(0, currency));

export function inboundShipmentJson(s: InboundShipmentView): InboundShipmentDocument {
  const currency = shipmentCurrency(s);
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
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}

export function inboundShipmentDetailJson(s: InboundShipmentView): InboundShipmentDetail {
  const doc = inboundShipmentJson(s);
  return {
    ...doc,
    items: doc.items.map((line, i) => ({
      ...line,
      product: { ...line.product, upc: s.items[i]!.product.upc },
      discrepancy: discrepancy(s.items[i]!),
    })),
    custom_volume_cubic_meters: null,
    purchase_orders: [],
    transfer_orders: [],
    files: [],
    damaged_count: s.damagedCount,
    missing_count: s.missingCount,
  };
}

/** A store's inbound shipments as their REST documents, a page at a time in id order (a webhook backfill's read). */
export async function inboundShipmentDocumentsPage(orm: Orm, storeId: string, afterId: string | null, limit: number) {
  const em = orm.em.fork();
  return (await loadShipments(em, await shipmentIdsAfter(em, storeId, afterId, limit))).map((s) => ({ subjectId: s.id, data: { inbound_shipment: inboundShipmentJson(s) } }));
}
