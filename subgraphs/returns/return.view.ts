import type { EntityManager } from '@mikro-orm/postgresql';
import { mapPage, type Page, type PageRequest } from '../../platform/api/pagination.js';
import { money, type Money } from '../../platform/money.js';
import { orderView, type OrderView } from './order.view.js';
import type { CommentRow, ReturnDestination, ReturnItemRow, ReturnReads, ReturnRow, ReturnSource, ReturnTagOnReturn, Shipment, WholeReturnRow } from './return.rows.js';
import { returnTotals } from './return.rules.js';
import type { ReturnFilter, ReturnLookup, ReturnWindow } from './return.schemas.js';

/**
 * A return as the API serves it, assembled from its row, its active items and its comments
 * (and its order, when the row carries it), and the loader of such views over return.rows.ts.
 */

interface ExchangeItemView {
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
const productName = (line: { title: string | null; sku: string | null }): string => line.title ?? line.sku ?? '';

/** A replacement of the same variant: what the customer gets back is what they send. */
function sameItemExchange(row: ReturnItemRow): ExchangeItemView {
  const name = productName(row);
  return { product: { externalId: row.productId, name }, quantity: row.quantity, variant: { externalId: row.variantId, name: row.variantTitle ?? name } };
}

function itemView(row: ReturnItemRow, currency: string, storeId: string): ReturnItemView {
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

/** Builds the view from one row of the whole-return query (with its order, when the row carries it). */
function wholeReturnView({ items, comments, tags, orderJson, ...row }: WholeReturnRow): ReturnView {
  const view = returnView(row, items, comments.map((c) => ({ ...c, createdAt: new Date(c.createdAt) })), tags);
  if (orderJson) {
    const { lines, ...order } = orderJson;
    const importedAt = order.importedAt === null ? null : new Date(order.importedAt);
    view.prefetchedOrder = orderView({ ...order, createdAt: new Date(order.createdAt), updatedAt: new Date(order.updatedAt), importedAt }, lines);
  }
  return view;
}

/** Whole returns as views (items, comments and order included), read through the rows' reads. */
export class ReturnViews {
  constructor(private readonly reads: ReturnReads) {}

  /** Views of the given returns (one query whatever their number), in no particular order. */
  async byIds(ids: readonly string[], em?: EntityManager): Promise<ReturnView[]> {
    return (await this.reads.byIds(ids, em)).map(wholeReturnView);
  }

  /** A store's returns, most recently updated first (ReturnReads#list). */
  async list(storeId: string, filters: ReturnFilter, page: PageRequest): Promise<Page<ReturnView>> {
    return mapPage(await this.reads.list(storeId, filters, page), wholeReturnView);
  }

  /** One return found inside a store by id, numeric id, order name or order numeric id (ReturnReads#lookup). */
  async lookup(storeId: string, by: ReturnLookup, em?: EntityManager): Promise<ReturnView | null> {
    const row = await this.reads.lookup(storeId, by, em);
    return row ? wholeReturnView(row) : null;
  }

  /** A store's returns within a window, paged both ways (ReturnReads#window). */
  async window(storeId: string, window: ReturnWindow, page: PageRequest): Promise<Page<ReturnView>> {
    return mapPage(await this.reads.window(storeId, window, page), wholeReturnView);
  }

  async listForOrder(orderId: string, page: PageRequest): Promise<Page<ReturnView>> {
    return mapPage(await this.reads.listForOrder(orderId, page), wholeReturnView);
  }

  /** Returns of orders whose customer has this email (case-insensitive) or phone. */
  async listForCustomer(storeId: string, email: string | null, phone: string | null, page: PageRequest): Promise<Page<ReturnView>> {
    return mapPage(await this.reads.listForCustomer(storeId, email, phone, page), wholeReturnView);
  }
}
