import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../platform/db/orm.js';
import type { InboundShipmentStatus } from './inbound-shipment.rules.js';

/** A shipment to a location (`inbound_shipment`), its costs as stored (amount and currency columns, amounts as decimal text). */
export interface InboundShipmentRow {
  id: string;
  storeId: string;
  shipmentId: string | null;
  status: InboundShipmentStatus;
  locationId: string;
  carrier: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
  estimatedArrivalDate: string | null;
  actualArrivalDate: string | null;
  freightType: string | null;
  paymentTerms: string | null;
  freightCostAmount: string | null;
  freightCostCurrency: string | null;
  dutyCostAmount: string | null;
  dutyCostCurrency: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A line of a shipment (`inbound_shipment_item`): the product, the units expected and the running totals of receipts. */
export interface InboundShipmentLineRow {
  id: string;
  shipmentId: string;
  productId: string;
  quantity: number;
  receivedQuantity: number;
  damagedQuantity: number;
  missingQuantity: number;
}

/** A store's shipment ids after `afterId` (none: from the first), in id order: a page of a webhook backfill. */
export async function shipmentIdsAfter(em: EntityManager, storeId: string, afterId: string | null, limit: number): Promise<string[]> {
  const rows = await sql<{ id: string }>(em, `select id from inbound_shipment where store_id = $1 and ($2::text is null or id > $2) order by id limit $3`, [storeId, afterId, limit]);
  return rows.map((r) => r.id);
}

export async function loadShipmentRows(em: EntityManager, ids: readonly string[]): Promise<InboundShipmentRow[]> {
  return sql<InboundShipmentRow>(
    em,
    `select id, store_id as "storeId", shipment_id as "shipmentId", status, location_id as "locationId", carrier,
            tracking_number as "trackingNumber", tracking_url as "trackingUrl",
            estimated_arrival_date::text as "estimatedArrivalDate", actual_arrival_date::text as "actualArrivalDate",
            freight_type as "freightType", payment_terms as "paymentTerms",
            freight_cost_amount::text as "freightCostAmount", freight_cost_currency as "freightCostCurrency",
            duty_cost_amount::text as "dutyCostAmount", duty_cost_currency as "dutyCostCurrency",
            created_at as "createdAt", updated_at as "updatedAt"
       from inbound_shipment where id = any($1)`,
    [ids],
  );
}

/** The lines of the shipments, each shipment's in the order it was created with. */
export async function loadShipmentLines(em: EntityManager, shipmentIds: readonly string[]): Promise<InboundShipmentLineRow[]> {
  return sql<InboundShipmentLineRow>(
    em,
    `select id, shipment_id as "shipmentId", product_id as "productId", quantity, received_quantity as "receivedQuantity",
            damaged_quantity as "damagedQuantity", missing_quantity as "missingQuantity"
       from inbound_shipment_item where shipment_id = any($1) order by shipment_id, position`,
    [shipmentIds],
  );
}
