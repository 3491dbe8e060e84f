import { money, type Money } from '../../platform/money.js';
import type { OrderView } from './order.view.js';
import type { CommentRow, ReturnDestination, ReturnItemRow, ReturnRow, ReturnSource, ReturnTagOnReturn, Shipment } from './return.rows.js';
import { returnTotals } from './return.rules.js';

/** A return as the API serves it, assembled from its row, its active items and its comments. */

export interface ExchangeItemView {
  product: { externalId: string | null; name: string };
  quantity: number;
  variant: { externalId: string | null; name: string };
}

export interface ReturnItemView {
  id: string;
  orderItem: { id: string; lineItemId: string; numericId: string };
  /** The order line this item returns units of: its quantity and its whole-line amounts. */
  line: { quantity: number; price: string; tax: string; discount: string };
  /** Exact decimals (as stored) of the refund and product value of the item's units. */
  exact: { refund: string; productValue: string };
  quantity: number;
  reason: string;
  customerComment: string | null;
  exchangeItem: ExchangeItemView | null;
  grade: string | null;
  greenReturn: boolean;
  /** refund, store_credit or exchange. */
  compensation: string;
  outcome: string | null;
  restock: boolean;
  shipmentGroupIds: string[];
  externalReturnLineItemId: string | null;
  productId: string | null;
  reasonCode: string | null;
  reasons: string[];
  reasonCodes: string[];
  productAdjustment: string | null;
  multipleChoiceQuestions: { question: string; answer: string }[];
  assessments: never[];
  refund: { amount: Money; type: string };
  productValueNoTaxNoAdjustment: { amount: Money };
  sku: string | null;
  upc: string | null;
  status: string;
  variantId: string | null;
  title: string | null;
  storeId: string;
}

export interface ReturnView {
  id: string;
  storeId: string;
  compatId: string;
  orderId: string;
  status: string;
  type: string;
  provider: string;
  currency: string;
  createdAt: Date;
  updatedAt: Date;
  closedAt: Date | null;
  /** Set when the customer was erased: the return stays without the person (docs/privacy.md). */
  erasedAt: Date | null;
  destination: ReturnDestination;
  source: ReturnSource;
  orderSummary: { id: string; name: string };
  /** The order's numeric id and its id on its commerce platform. */
  orderNumericId: string;
  externalOrderId: string;
  items: ReturnItemView[];
  giftCards: never[];
  compensationMethods: string[];
  completeWithNoAction: boolean;
  exchange: null;
  externalOrderIds: string[];
  externalReturnIds: { provider: string; value: string }[];
  internalCreatedByName: string | null;
  notes: { message: string; image: string | null }[];
  shipment: Shipment | null;
  shipments: Shipment[];
  shipmentRecorded: boolean;
  dropoffs: never[];
  platformOrderIds: string[];
  tags: ReturnTagOnReturn[];
  /** Imported from another system: when (null for returns made here), and its reference there. */
  importedAt: Date | null;
  externalReferenceId: string | null;
  externalProvider: string | null;
  totals: { charge: { amount: Money }; exchange: { amount: Money }; refund: { amount: Money }; storeCredit: { amount: Money } };
  /** The order, when it was loaded with the return (saves `Return.order` a query). */
  prefetchedOrder?: OrderView;
}


/** The product's display name: its title, else its sku (clients require a name). */
export const productName = (line: { title: string | null; sku: string | null }): string => line.title ?? line.sku ?? '';

/** A replacement of the same variant: what the customer gets back is what they send. */
function sameItemExchange(row: ReturnItemRow): ExchangeItemView {
  const name = productName(row);
  return { product: { externalId: row.productId, name }, quantity: row.quantity, variant: { externalId: row.variantId, name: row.variantTitle ?? name } };
}

export function itemView(row: ReturnItemRow, currency: string, storeId: string): ReturnItemView {
  return {
    id: row.id,
    orderItem: { id: row.orderLineItemId, lineItemId: row.lineExternalId, numericId: row.lineCompatId },
    line: { quantity: row.lineQuantity, price: row.linePrice, tax: row.lineTax, discount: row.lineDiscount },
    exact: { refund: row.refundAmount, productValue: row.productValue },
    quantity: row.quantity,
    reason: row.reason,
    customerComment: row.customerComment,
    exchangeItem: row.sameItemReplacement ? sameItemExchange(row) : null,
    grade: row.grade ?? null,
    greenReturn: false,
    compensation: row.compensation,
    outcome: row.outcome,
    restock: row.restock ?? true,
    shipmentGroupIds: [],
    externalReturnLineItemId: null,
    productId: row.productId,
    reasonCode: row.reasonCode,
    reasons: [row.reason],
    reasonCodes: row.reasonCode ? [row.reasonCode] : [],
    productAdjustment: null,
    multipleChoiceQuestions: [],
    assessments: [],
    refund: { amount: money(row.refundAmount, currency), type: row.compensation },
    productValueNoTaxNoAdjustment: { amount: money(row.productValue, currency) },
    sku: row.sku,
    upc: row.upc ?? null,
    status: row.status,
    variantId: row.variantId,
    title: row.title,
    storeId,
  };
}


export function returnView(row: ReturnRow, items: ReturnItemRow[], comments: CommentRow[], tags: ReturnTagOnReturn[] = []): ReturnView {
  // An imported return's order is the one made for it: no order of a commerce platform to name.
  const orderIds = row.orderImported ? [] : [row.externalOrderId];
  return {
    id: row.id,
    storeId: row.storeId,
    compatId: row.compatId,
    orderId: row.orderId,
    status: row.status,
    type: row.type,
    provider: row.provider,
    currency: row.currency,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    closedAt: row.closedAt,
    erasedAt: row.erasedAt,
    destination: row.destination,
    source: row.source,
    orderSummary: { id: row.orderId, name: row.orderName },
    orderNumericId: row.orderCompatId,
    externalOrderId: row.externalOrderId,
    items: items.map((i) => itemView(i, row.currency, row.storeId)),
    giftCards: [],
    compensationMethods: row.compensationMethods,
    completeWithNoAction: false,
    exchange: null,
    externalOrderIds: orderIds,
    // The real platform names only Shopify's return ids here (its schema's one provider): an import from Shopify shows its id.
    externalReturnIds: row.externalReferenceId && row.externalProvider === 'shopify' ? [{ provider: 'shopify', value: row.externalReferenceId }] : [],
    internalCreatedByName: null,
    notes: [...(row.notes ? [{ message: row.notes, image: null }] : []), ...comments.map((c) => ({ message: c.message, image: c.image }))],
    shipment: row.shipment,
    shipments: row.shipments,
    shipmentRecorded: row.shipmentRecorded,
    dropoffs: [],
    platformOrderIds: orderIds,
    tags,
    importedAt: row.importedAt ?? null,
    externalReferenceId: row.externalReferenceId ?? null,
    externalProvider: row.externalProvider ?? null,
    totals: returnTotals(items, row.currency),
  };
}
