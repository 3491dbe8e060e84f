import { Decimal, currencyDigits } from '../../platform/money.js';
import type { ReturnRecord, ReturnRecordItem } from '../../subgraphs/returns/public.js';
import { loopState } from './params.js';

/**
 * The service's return records in Loop's warehouse formats (decisions
 * section 11). Everything Loop-shaped about a return is decided here.
 */

export type TimestampStyle = 'details' | 'list';

/** Details show `YYYY-MM-DD HH:MM:SS` (UTC); lists ISO 8601 with milliseconds and `Z`. */
export function loopTime(iso: string | null, style: TimestampStyle): string | null {
  if (iso === null) return null;
  return style === 'list' ? iso : iso.slice(0, 19).replace('T', ' ');
}

/** Loop's label statuses for the service's shipment statuses. */
const LABEL_STATUS: Record<string, string> = {
  label_created: 'new',
  pre_transit: 'pre_transit',
  in_transit: 'in_transit',
  out_for_delivery: 'out_for_delivery',
  delivered: 'delivered',
  failure: 'failure',
  returned_to_sender: 'return_to_sender',
};

/** Loop's outcome words for the service's compensations. */
const OUTCOME: Record<string, string> = { refund: 'refund', store_credit: 'gift', exchange: 'exchange' };

function outcomeOf(items: readonly ReturnRecordItem[]): string | null {
  const kinds = [...new Set(items.map((i) => OUTCOME[i.compensation] ?? i.compensation))];
  if (kinds.length === 0) return null;
  return kinds.length === 1 ? kinds[0]! : 'mixed';
}

/** Amounts of one returned item, each for the item's units, rounded to the currency's minor unit. */
function itemAmounts(item: ReturnRecordItem, currency: string) {
  const digits = currencyDigits(currency);
  const round = (d: Decimal) => d.toDecimalPlaces(digits, Decimal.ROUND_HALF_UP);
  const share = new Decimal(item.quantity).dividedBy(item.line.quantity);
  return {
    price: round(new Decimal(item.line.price).times(item.quantity)),
    discount: round(new Decimal(item.line.discount).times(share)),
    tax: round(new Decimal(item.line.tax).times(share)),
    refund: round(new Decimal(item.refund)),
  };
}

type LoopExchangeLine = ReturnType<typeof exchangeLine>;

/**
 * What an exchanged item is replaced by (decisions section 17): the service
 * records no other variant for an exchange, so the replacement is the
 * returned line's product and variant, for the same units and price.
 */
function exchangeLine(item: ReturnRecordItem, price: string) {
  return { line_item_id: item.line.numericId, product_id: item.productId, variant_id: item.variantId, sku: item.sku, title: item.title, quantity: item.quantity, price };
}

/** One return in Loop's shape: `details` and list entries differ only in their timestamps. */
export function loopReturn(record: ReturnRecord, style: TimestampStyle, now: Date) {
  const digits = currencyDigits(record.currency);
  const text = (d: Decimal) => d.toFixed(digits);
  const zero = new Decimal(0);
  const totals = { product: zero, discount: zero, tax: zero, refund: zero, refunded: zero, credited: zero, exchanged: zero };
  const exchanges: LoopExchangeLine[] = [];
  const lineItems = record.items.map((item) => {
    const a = itemAmounts(item, record.currency);
    totals.product = totals.product.plus(a.price);
    totals.discount = totals.discount.plus(a.discount);
    totals.tax = totals.tax.plus(a.tax);
    totals.refund = totals.refund.plus(a.refund);
    if (item.compensation === 'refund') totals.refunded = totals.refunded.plus(a.refund);
    if (item.compensation === 'store_credit') totals.credited = totals.credited.plus(a.refund);
    if (item.compensation === 'exchange') {
      totals.exchanged = totals.exchanged.plus(a.price);
      exchanges.push(exchangeLine(item, text(a.price)));
    }
    return {
      line_item_id: item.line.numericId,
      provider_line_item_id: item.line.externalId,
      product_id: item.productId,
      variant_id: item.variantId,
      sku: item.sku,
      title: item.title,
      quantity: item.quantity,
      price: text(a.price),
      discount: text(a.discount),
      tax: text(a.tax),
      refund: text(a.refund),
      outcome: OUTCOME[item.compensation] ?? item.compensation,
      return_reason: item.reason,
      return_comment: item.comment,
      returned_at: record.createdAt,
    };
  });
  const returnTotal = totals.product.minus(totals.discount).plus(totals.tax);
  return {
    id: record.numericId,
    service_id: record.id,
    state: loopState(record, now),
    created_at: loopTime(record.createdAt, style),
    updated_at: loopTime(record.updatedAt, style),
    order_id: record.order.numericId,
    order_name: record.order.name,
    provider_order_id: record.order.externalId,
    customer: record.customer.email,
    currency: record.currency,
    total: text(totals.refund),
    return_product_total: text(totals.product),
    return_discount_total: text(totals.discount),
    return_tax_total: text(totals.tax),
    return_total: text(returnTotal),
    return_credit_total: text(returnTotal),
    exchange_total: text(totals.exchanged),
    refund: text(totals.refunded),
    gift_card: text(totals.credited),
    outcome: outcomeOf(record.items),
    carrier: record.shipment?.carrier ?? null,
    tracking_number: record.shipment?.tracker ?? null,
    label_status: record.shipment ? (LABEL_STATUS[record.shipment.status] ?? record.shipment.status) : null,
    line_items: lineItems,
    exchanges,
  };
}

/** The ASN report's rows: one per returned item (decisions section 11). */
export function asnRows(record: ReturnRecord, now: Date) {
  const state = loopState(record, now);
  return record.items.map((item) => ({
    id: record.numericId,
    return_line_item_id: item.id,
    order_id: record.order.numericId,
    order_name: record.order.name,
    state,
    customer_email: record.customer.email,
    title: item.title,
    sku: item.sku,
    barcode: item.barcode,
    quantity: item.quantity,
    purchase_price: new Decimal(item.line.price).toFixed(currencyDigits(record.currency)),
    carrier: record.shipment?.carrier ?? null,
    tracking_number: record.shipment?.tracker ?? null,
    label_status: record.shipment ? (LABEL_STATUS[record.shipment.status] ?? record.shipment.status) : null,
    return_reason: item.reason,
    outcome: OUTCOME[item.compensation] ?? item.compensation,
    currency: record.currency,
    created_at: loopTime(record.createdAt, 'details'),
    updated_at: loopTime(record.updatedAt, 'details'),
    closed_at: loopTime(record.closedAt, 'details'),
  }));
}
