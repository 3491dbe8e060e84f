import { AppError } from '../../platform/errors.js';
import { Decimal, money, type Money } from '../../platform/money.js';
import type { LineAmounts } from './order.rules.js';

/**
 * The pure rules of returns: status transitions, what a shipment event moves a
 * return to, the amounts of items and totals, and returnable quantities. No
 * I/O, so test/unit/return-rules.test.ts checks them without an app.
 */

export const RETURN_STATUSES = [
  'pre_shipment',
  'open',
  'in_transit',
  'delivered',
  'needs_review',
  'in_review',
  'flagged',
  'complete',
  'rejected',
  'deleted',
] as const;
export type ReturnStatus = (typeof RETURN_STATUSES)[number];

/**
 * Allowed transitions (decisions section 15). `deleted` is a reset: the items
 * become returnable again and nothing leaves it. Reopening (`complete`/`rejected`
 * -> `open`) reverses nothing already done.
 */
export const TRANSITIONS: Record<ReturnStatus, readonly ReturnStatus[]> = {
  pre_shipment: ['open', 'flagged', 'complete', 'rejected', 'deleted'],
  open: ['in_transit', 'delivered', 'needs_review', 'flagged', 'complete', 'rejected', 'deleted'],
  in_transit: ['delivered', 'needs_review', 'flagged', 'complete', 'rejected', 'deleted'],
  delivered: ['needs_review', 'in_review', 'flagged', 'complete', 'rejected', 'deleted'],
  needs_review: ['in_review', 'flagged', 'open', 'complete', 'rejected', 'deleted'],
  in_review: ['needs_review', 'flagged', 'complete', 'rejected'],
  flagged: ['open', 'in_review', 'complete', 'rejected', 'deleted'],
  complete: ['open'],
  rejected: ['open'],
  deleted: [],
};

/** The targets REST `PUT /returns/{id}/status` accepts; GraphQL `updateReturnStatus` takes any. */
export const REST_STATUS_TARGETS = ['complete', 'open', 'flagged', 'rejected', 'deleted'] as const;

/** Statuses whose items no longer count as returned (the units are returnable again). */
export const RELEASED_STATUSES: readonly ReturnStatus[] = ['rejected', 'deleted'];

/** Statuses that close a return (set `closedAt`). */
export const CLOSED_STATUSES: readonly ReturnStatus[] = ['complete', 'rejected', 'deleted'];

export function canTransition(from: ReturnStatus, to: ReturnStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export function assertTransition(from: ReturnStatus, to: ReturnStatus): void {
  if (!canTransition(from, to)) {
    const allowed = TRANSITIONS[from];
    throw new AppError(
      'conflict',
      'invalid-transition',
      `A return cannot go from ${from} to ${to}${allowed.length ? `; from ${from} it can go to ${allowed.join(', ')}` : `; ${from} is final`}.`,
    );
  }
}

/** Shipment tracking statuses and the return status each one moves the return to (when allowed). */
export const SHIPMENT_STATUSES = ['label_created', 'pre_transit', 'in_transit', 'out_for_delivery', 'delivered', 'failure', 'returned_to_sender'] as const;
export type ShipmentStatus = (typeof SHIPMENT_STATUSES)[number];

export function returnStatusForShipment(status: ShipmentStatus): ReturnStatus | undefined {
  if (status === 'in_transit' || status === 'out_for_delivery') return 'in_transit';
  if (status === 'delivered') return 'delivered';
  return undefined;
}

/** What a return item is compensated by: `same_item_replacement` is an exchange for the same variant; refund by default. */
export function itemCompensation(requested: string | null | undefined): string {
  return requested === 'same_item_replacement' ? 'exchange' : (requested ?? 'refund');
}

/** Unit refund of an order line: its price plus its tax less its discount, spread over the ordered units. */
export function unitRefund(line: LineAmounts): Decimal {
  return new Decimal(line.price).plus(new Decimal(line.tax).minus(line.discount).dividedBy(line.quantity));
}

/** Refund and product value of `quantity` units of a line, as exact decimals (6 places, as stored). */
export function itemAmounts(line: LineAmounts, quantity: number): { refund: string; productValue: string } {
  return { refund: unitRefund(line).times(quantity).toFixed(6), productValue: new Decimal(line.price).times(quantity).toFixed(6) };
}

/**
 * A return's totals: the items' refund amounts summed per compensation, then
 * rounded once to the currency's minor unit (nothing is ever charged).
 */
export function returnTotals(
  items: readonly { compensation: string; refundAmount: string }[],
  currency: string,
): { charge: { amount: Money }; exchange: { amount: Money }; refund: { amount: Money }; storeCredit: { amount: Money } } {
  const sum = (compensation: string) =>
    items.filter((i) => i.compensation === compensation).reduce((acc, i) => acc.plus(i.refundAmount), new Decimal(0));
  const amount = (value: Decimal.Value) => ({ amount: money(value, currency) });
  return { charge: amount(0), exchange: amount(sum('exchange')), refund: amount(sum('refund')), storeCredit: amount(sum('store_credit')) };
}

/** Units of a line still returnable: the ordered quantity less what returns hold (never below zero). */
/**
 * Units of a line still returnable: what reached the customer less what other returns hold. What
 * reached the customer is the units fulfilled when the order reports fulfillments (`fulfilled`
 * given, 0 for a line none of them ships), else every unit ordered (orders pushed without them).
 */
export function returnableUnits(ordered: number, held: number, fulfilled: number | null = null): number {
  return Math.max(Math.min(ordered, fulfilled ?? ordered) - held, 0);
}

/** Whether an order update keeps a line's returned units: the line stays, with at least that quantity. */
export function keepsReturnedUnits(quantity: number | undefined, held: number): boolean {
  return quantity !== undefined && quantity >= held;
}
