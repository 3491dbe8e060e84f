import type { Money } from '../../platform/money.js';
import { conflict, invalid } from '../../platform/errors.js';
import { Violations } from '../../platform/validation/index.js';
import type { ReceiveInboundShipmentItemInput } from './inbound-shipment.input.js';

/** A shipment's status, spelled exactly as REST shows it (the GraphQL enum carries the same spellings). */
export enum InboundShipmentStatus {
  PENDING = 'PENDING',
  IN_TRANSIT = 'IN_TRANSIT',
  PARTIALLY_RECEIVED = 'PARTIALLY_RECEIVED',
  RECEIVED = 'RECEIVED',
}

/**
 * Status machine: PENDING -> IN_TRANSIT -> PARTIALLY_RECEIVED -> RECEIVED;
 * receipts may start from PENDING or IN_TRANSIT; RECEIVED is final. A receipt
 * is checked as a move to RECEIVED (it stops at PARTIALLY_RECEIVED while
 * units remain unaccounted for).
 */
const ALLOWED_FROM = {
  [InboundShipmentStatus.IN_TRANSIT]: new Set([InboundShipmentStatus.PENDING]),
  [InboundShipmentStatus.RECEIVED]: new Set([InboundShipmentStatus.PENDING, InboundShipmentStatus.IN_TRANSIT, InboundShipmentStatus.PARTIALLY_RECEIVED]),
};

/** 409 `invalid-transition` unless a shipment in `from` may move to `to`. */
export function checkTransition(from: InboundShipmentStatus, to: keyof typeof ALLOWED_FROM): void {
  if (!ALLOWED_FROM[to].has(from)) throw conflict('invalid-transition', `An inbound shipment cannot go from ${from} to ${to}.`);
}

/** A line's expected units and running totals (what a stored line, inbound-shipment.rows.ts, carries). */
export interface LineTotals {
  quantity: number;
  receivedQuantity: number;
  damagedQuantity: number;
  missingQuantity: number;
}
export type ReceiptLine = Pick<ReceiveInboundShipmentItemInput, 'itemId' | 'receivedQuantity' | 'damagedQuantity' | 'missingQuantity'>;

/** 400 `validation-failed` naming every receipt line that reports no units. */
export function checkReceiptReportsUnits(items: readonly ReceiptLine[]): void {
  const v = new Violations();
  items.forEach((item, i) => {
    if (!(item.receivedQuantity || item.damagedQuantity || item.missingQuantity)) v.add(`/items/${i}`, 'reports no units');
  });
  v.throwIfAny('The receipt is invalid.');
}

/**
 * Each receipt line must be a line of the shipment (400 `validation-failed`)
 * and report at most the units the line has not accounted for yet (400
 * `quantity-exceeds-expected`, which wins when both happen). Every violation
 * is named at once.
 */
export function checkReceiptFits(shipmentId: string, items: readonly ReceiptLine[], lines: ReadonlyMap<string, LineTotals>): void {
  const errors = new Violations();
  let overflow = false;
  items.forEach((item, i) => {
    const line = lines.get(item.itemId);
    if (!line) return errors.add(`/items/${i}/itemId`, `is not a line of shipment ${shipmentId}`);
    const reported = (item.receivedQuantity ?? 0) + (item.damagedQuantity ?? 0) + (item.missingQuantity ?? 0);
    const accounted = line.receivedQuantity + line.damagedQuantity + line.missingQuantity;
    if (accounted + reported > line.quantity) {
      overflow = true;
      errors.add(`/items/${i}`, `reports ${reported} units but only ${line.quantity - accounted} of ${line.quantity} remain unaccounted for`);
    }
  });
  if (overflow) throw invalid('quantity-exceeds-expected', 'The receipt reports more units than the shipment expects.', errors.errors);
  errors.throwIfAny('The receipt is invalid.');
}

/** What a shipment counts over its lines: lines, then units expected, received in good shape, damaged and missing. */
export interface ShipmentCounts {
  skuCount: number;
  itemCount: number;
  receivedCount: number;
  damagedCount: number;
  missingCount: number;
}

/** The counts are derived from the lines on every read, never stored. */
export function shipmentCounts(lines: readonly LineTotals[]): ShipmentCounts {
  return {
    skuCount: lines.length,
    itemCount: lines.reduce((n, l) => n + l.quantity, 0),
    receivedCount: lines.reduce((n, l) => n + l.receivedQuantity, 0),
    damagedCount: lines.reduce((n, l) => n + l.damagedQuantity, 0),
    missingCount: lines.reduce((n, l) => n + l.missingQuantity, 0),
  };
}

/** Expected units of a line less the good ones received (damaged, missing or still due). */
export function discrepancy(line: Pick<LineTotals, 'quantity' | 'receivedQuantity'>): number {
  return line.quantity - line.receivedQuantity;
}

/** The shipment's currency: that of its costs; USD when it has none. */
export function shipmentCurrency(costs: { freightCost: Money | null; dutyCost: Money | null }): string {
  return costs.freightCost?.currency ?? costs.dutyCost?.currency ?? 'USD';
}
