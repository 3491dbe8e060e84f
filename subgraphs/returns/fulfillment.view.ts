import { fulfillmentDocument, type FulfillmentDocument } from './order-api.json.js';
import type { FulfillmentRow } from './fulfillment.rows.js';
import type { FulfillmentType } from './fulfillment.type.js';

/** A fulfillment as GraphQL serves it, with its orders API document (what `restJson` shows). */
export interface FulfillmentView extends FulfillmentType {
  storeId: string;
  orderId: string;
  document: FulfillmentDocument;
}

export function fulfillmentView(row: FulfillmentRow): FulfillmentView {
  return {
    id: row.id,
    storeId: row.storeId,
    orderId: row.orderId,
    fulfillmentId: row.externalId,
    status: row.status,
    trackingCompany: row.trackingCompany,
    trackingNumber: row.trackingNumber,
    estimatedDeliveryDate: row.estimatedDeliveryDate,
    deliveredAt: row.deliveredAt === null ? null : new Date(row.deliveredAt),
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
    lines: row.lines.map((l) => ({ orderItemId: l.orderLineItemId, lineItemId: l.lineExternalId, quantity: l.quantity, title: l.title, sku: l.sku })),
    trackingHistory: row.events.map((e) => ({
      status: e.status,
      message: e.message,
      at: new Date(e.at),
      location: e.location ? { city: e.location.city ?? null, state: e.location.state ?? null, country: e.location.country ?? null, postalCode: e.location.postalCode ?? null } : null,
    })),
    document: fulfillmentDocument(row),
  };
}
