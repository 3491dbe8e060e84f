import type { ReturnView } from './return.view.js';

/**
 * A return's facts as one flat document, in the domain's own terms: its ids
 * (service and numeric), status, times, shipment, customer, order and items
 * with their order lines' amounts. API surfaces that show returns in another
 * platform's format (the compatibility API) map it there; the subgraph
 * serves it as JSON text (`Return.recordJson`, `ReturnWindowPage.recordsJson`)
 * so a page of them crosses the gateway as one string.
 */
export interface ReturnRecord {
  id: string;
  numericId: number;
  storeId: string;
  status: string;
  type: string;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  currency: string;
  /** Whether any carrier event was ever recorded for the return. */
  shipmentRecorded: boolean;
  shipment: { carrier: string | null; tracker: string | null; status: string } | null;
  customer: { email: string | null };
  order: { id: string; numericId: number; name: string; externalId: string; provider: string };
  items: ReturnRecordItem[];
}

export interface ReturnRecordItem {
  id: string;
  quantity: number;
  reason: string;
  comment: string | null;
  compensation: string;
  /** Exact decimals (6 places), for the item's whole quantity. */
  refund: string;
  productValue: string;
  sku: string | null;
  title: string | null;
  productId: string | null;
  variantId: string | null;
  /** The item's barcode: the one an import gave, else its product's UPC (null when neither is known). */
  barcode: string | null;
  /** The order line: its quantity, unit price, and tax and discount of the whole line. */
  line: { id: string; numericId: number; externalId: string; quantity: number; price: string; tax: string; discount: string };
}

export function returnRecord(view: ReturnView): ReturnRecord {
  return {
    id: view.id,
    numericId: Number(view.compatId),
    storeId: view.storeId,
    status: view.status,
    type: view.type,
    createdAt: view.createdAt.toISOString(),
    updatedAt: view.updatedAt.toISOString(),
    closedAt: view.closedAt?.toISOString() ?? null,
    currency: view.currency,
    shipmentRecorded: view.shipmentRecorded,
    shipment: view.shipment ? { carrier: view.shipment.carrier, tracker: view.shipment.tracker, status: view.shipment.status } : null,
    customer: { email: view.source.emailAddress },
    order: { id: view.orderId, numericId: Number(view.orderNumericId), name: view.orderSummary.name, externalId: view.externalOrderId, provider: view.provider },
    items: view.items.map((item) => ({
      id: item.id,
      quantity: item.quantity,
      reason: item.reason,
      comment: item.customerComment,
      compensation: item.compensation,
      refund: item.exact.refund,
      productValue: item.exact.productValue,
      sku: item.sku,
      title: item.title,
      productId: item.productId,
      variantId: item.variantId,
      barcode: item.upc,
      line: { id: item.orderItem.id, numericId: Number(item.orderItem.numericId), externalId: item.orderItem.lineItemId, ...item.line },
    })),
  };
}
