import { sql, type EntityManager, type Orm } from '../../platform/db/orm.js';
import type { FulfillmentStatus } from './fulfillment.rules.js';
import type { TrackingLocation } from './fulfillment.schemas.js';

/** Fulfillments as stored, each with its lines and tracking history, and the reads of them. */

interface FulfillmentLineRow {
  orderLineItemId: string;
  /** The order line's external id (what clients name it by). */
  lineExternalId: string;
  quantity: number;
  title: string | null;
  productId: string | null;
  variantId: string | null;
  sku: string | null;
}

interface TrackingEventRow {
  status: string;
  message: string;
  at: string;
  location: TrackingLocation | null;
}

export interface FulfillmentRow {
  id: string;
  storeId: string;
  orderId: string;
  externalId: string;
  status: FulfillmentStatus;
  trackingCompany: string | null;
  trackingNumber: string | null;
  /** YYYY-MM-DD. */
  estimatedDeliveryDate: string | null;
  deliveredAt: Date | null;
  statusAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  lines: FulfillmentLineRow[];
  /** Oldest first (by the carrier's time, then as recorded). */
  events: TrackingEventRow[];
}

const FULFILLMENT_COLUMNS = `f.id, f.store_id as "storeId", f.order_id as "orderId", f.external_id as "externalId", f.status,
  f.tracking_company as "trackingCompany", f.tracking_number as "trackingNumber", f.estimated_delivery_date::text as "estimatedDeliveryDate",
  f.delivered_at as "deliveredAt", f.status_at as "statusAt", f.created_at as "createdAt", f.updated_at as "updatedAt",
  coalesce((select json_agg(json_build_object('orderLineItemId', fl.order_line_item_id, 'lineExternalId', l.external_id, 'quantity', fl.quantity,
      'title', l.title, 'productId', l.product_id, 'variantId', l.variant_id, 'sku', l.sku) order by fl.position)
    from fulfillment_line fl join order_line_item l on l.id = fl.order_line_item_id where fl.fulfillment_id = f.id), '[]') as lines,
  coalesce((select json_agg(json_build_object('status', e.status, 'message', e.message, 'at', e.at, 'location', e.location) order by e.at, e.id)
    from fulfillment_event e where e.fulfillment_id = f.id), '[]') as events`;

/** Units of each line of an order in fulfillments that are not cancelled. */
export interface FulfilledUnits {
  /** Whether the order reports any fulfillment that is not cancelled. */
  reported: boolean;
  byLine: Map<string, number>;
}

export class FulfillmentReads {
  constructor(private readonly orm: Orm) {}

  /** The fulfillments of the given orders, oldest first within each order. */
  async forOrders(orderIds: readonly string[], em: EntityManager = this.orm.em.fork()): Promise<Map<string, FulfillmentRow[]>> {
    const byOrder = new Map<string, FulfillmentRow[]>(orderIds.map((id) => [id, []]));
    if (!orderIds.length) return byOrder;
    const rows = await sql<FulfillmentRow>(em, `select ${FULFILLMENT_COLUMNS} from fulfillment f where f.order_id = any($1) order by f.created_at, f.id`, [orderIds]);
    for (const row of rows) byOrder.get(row.orderId)?.push(row);
    return byOrder;
  }

  /** What shipped of each order line (GraphQL's `fulfilledQuantity`). */
  lineStates(lineIds: readonly string[]): Promise<LineFulfillment[]> {
    return lineFulfillments(this.orm.em.fork(), lineIds);
  }

  /** One fulfillment of an order by the id clients name it by. */
  async find(em: EntityManager, orderId: string, externalId: string, lock = false): Promise<FulfillmentRow | null> {
    const [row] = await sql<FulfillmentRow>(em, `select ${FULFILLMENT_COLUMNS} from fulfillment f where f.order_id = $1 and f.external_id = $2${lock ? ' for update' : ''}`, [orderId, externalId]);
    return row ?? null;
  }
}

/**
 * What an order's lines have in fulfillments that are not cancelled (returnable units follow it),
 * and whether the order reports fulfillments at all (a cancelled one counts: the order is tracked).
 */
export async function fulfilledUnits(em: EntityManager, orderId: string): Promise<FulfilledUnits> {
  const rows = await sql<{ lineId: string | null; units: number }>(
    em,
    `select fl.order_line_item_id as "lineId", coalesce(sum(fl.quantity) filter (where f.status <> 'cancelled'), 0)::int as units
       from fulfillment f left join fulfillment_line fl on fl.fulfillment_id = f.id
      where f.order_id = $1 group by fl.order_line_item_id`,
    [orderId],
  );
  return { reported: rows.length > 0, byLine: new Map(rows.flatMap((r) => (r.lineId ? [[r.lineId, r.units] as const] : []))) };
}

/** What shipped of an order line: its units in fulfillments that are not cancelled and the newest such fulfillment's status. */
export interface LineFulfillment {
  id: string;
  /** Whether the line's order reports fulfillments at all. */
  reported: boolean;
  units: number;
  status: string | null;
}

/** The fulfillment state of order lines by id (what the `fulfilledQuantity` fields batch). */
async function lineFulfillments(em: EntityManager, lineIds: readonly string[]): Promise<LineFulfillment[]> {
  if (!lineIds.length) return [];
  return sql<LineFulfillment>(
    em,
    `select l.id, exists (select 1 from fulfillment f where f.order_id = l.order_id) as reported,
            coalesce(s.units, 0)::int as units, s.status
       from order_line_item l
       left join lateral (
         select sum(fl.quantity) as units, (array_agg(f.status order by f.created_at desc, f.id desc))[1] as status
           from fulfillment_line fl join fulfillment f on f.id = fl.fulfillment_id
          where fl.order_line_item_id = l.id and f.status <> 'cancelled') s on true
      where l.id = any($1)`,
    [lineIds],
  );
}
