import { describe, expect, it } from 'vitest';
import { AppError } from '../../platform/errors.js';
import { orderTotals } from '../../subgraphs/returns/order.rules.js';
import {
  assertTransition,
  canTransition,
  CLOSED_STATUSES,
  itemAmounts,
  itemCompensation,
  keepsReturnedUnits,
  RELEASED_STATUSES,
  RETURN_STATUSES,
  returnableUnits,
  returnStatusForShipment,
  returnTotals,
  SHIPMENT_STATUSES,
  TRANSITIONS,
  unitRefund,
  type ReturnStatus,
} from '../../subgraphs/returns/return.rules.js';

/** The error `assertTransition` throws, or undefined when it allows the move. */
function refusal(from: ReturnStatus, to: ReturnStatus): AppError | undefined {
  try {
    assertTransition(from, to);
    return undefined;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
}

describe('return status transitions', () => {
  it('allows the moves of the table', () => {
    const allowed: [ReturnStatus, ReturnStatus][] = [
      ['pre_shipment', 'open'],
      ['open', 'in_transit'],
      ['in_transit', 'delivered'],
      ['delivered', 'in_review'],
      ['needs_review', 'open'],
      ['in_review', 'needs_review'],
      ['flagged', 'in_review'],
      ['open', 'complete'],
      ['delivered', 'deleted'],
      // Reopening a closed return.
      ['complete', 'open'],
      ['rejected', 'open'],
    ];
    for (const [from, to] of allowed) {
      expect(canTransition(from, to), `${from} -> ${to}`).toBe(true);
      expect(refusal(from, to), `${from} -> ${to}`).toBeUndefined();
    }
  });

  it('refuses the others as a conflict naming where the return can go', () => {
    const refused: [ReturnStatus, ReturnStatus][] = [
      ['pre_shipment', 'in_transit'],
      ['open', 'in_review'],
      ['in_transit', 'open'],
      ['in_review', 'deleted'],
      ['complete', 'rejected'],
      ['complete', 'deleted'],
      ['rejected', 'complete'],
    ];
    for (const [from, to] of refused) {
      expect(canTransition(from, to), `${from} -> ${to}`).toBe(false);
      const err = refusal(from, to);
      expect(err, `${from} -> ${to}`).toBeInstanceOf(AppError);
      expect(err!.type).toBe('conflict');
      expect(err!.slug).toBe('invalid-transition');
    }
    expect(refusal('complete', 'rejected')!.message).toBe('A return cannot go from complete to rejected; from complete it can go to open.');
  });

  it('treats deleted as final and never moves a return to its own status', () => {
    expect(TRANSITIONS.deleted).toEqual([]);
    for (const to of RETURN_STATUSES) expect(canTransition('deleted', to)).toBe(false);
    expect(refusal('deleted', 'open')!.message).toBe('A return cannot go from deleted to open; deleted is final.');
    for (const status of RETURN_STATUSES) expect(canTransition(status, status), status).toBe(false);
  });

  it('has a row for every status, naming only statuses', () => {
    expect(Object.keys(TRANSITIONS).sort()).toEqual([...RETURN_STATUSES].sort());
    for (const targets of Object.values(TRANSITIONS)) for (const to of targets) expect(RETURN_STATUSES).toContain(to);
  });

  it('closes a return when it is completed, rejected or deleted, and releases its units only when rejected or deleted', () => {
    expect([...CLOSED_STATUSES].sort()).toEqual(['complete', 'deleted', 'rejected']);
    expect([...RELEASED_STATUSES].sort()).toEqual(['deleted', 'rejected']);
  });

  it('moves a return along with its carrier events, and only forwards in transit or on delivery', () => {
    const moves = Object.fromEntries(SHIPMENT_STATUSES.map((s) => [s, returnStatusForShipment(s)]));
    expect(moves).toEqual({
      label_created: undefined,
      pre_transit: undefined,
      in_transit: 'in_transit',
      out_for_delivery: 'in_transit',
      delivered: 'delivered',
      failure: undefined,
      returned_to_sender: undefined,
    });
  });
});

describe('refund arithmetic', () => {
  const line = { price: '10.00', tax: '3.00', discount: '1.00', quantity: 3 };

  it('spreads the line tax less its discount over the ordered units', () => {
    expect(unitRefund(line).toFixed(6)).toBe('10.666667');
    expect(unitRefund({ price: '19.99', tax: '0', discount: '0', quantity: 1 }).toFixed()).toBe('19.99');
  });

  it('keeps six exact places for the units returned, computed from the exact unit refund', () => {
    // 2 x 10.6666...: rounding the unit first (10.666667) would give 21.333334.
    expect(itemAmounts(line, 2)).toEqual({ refund: '21.333333', productValue: '20.000000' });
    expect(itemAmounts(line, 3)).toEqual({ refund: '32.000000', productValue: '30.000000' });
    expect(itemAmounts({ price: '5.555', tax: '0.445', discount: '0', quantity: 1 }, 1)).toEqual({ refund: '6.000000', productValue: '5.555000' });
  });

  it('totals several items per compensation, rounded once to the currency', () => {
    const totals = returnTotals(
      [
        { compensation: 'refund', refundAmount: '21.333333' },
        { compensation: 'refund', refundAmount: '5.005000' },
        { compensation: 'store_credit', refundAmount: '0.004000' },
        { compensation: 'store_credit', refundAmount: '0.004000' },
      ],
      'USD',
    );
    expect(totals).toEqual({
      charge: { amount: { amount: '0.00', currency: 'USD' } },
      exchange: { amount: { amount: '0.00', currency: 'USD' } },
      // 26.338333 -> 26.34
      refund: { amount: { amount: '26.34', currency: 'USD' } },
      // Summed before rounding: 0.008 -> 0.01 (each rounded alone would be 0.00).
      storeCredit: { amount: { amount: '0.01', currency: 'USD' } },
    });
  });

  it('rounds half up to the minor unit of each currency', () => {
    const refund = (amount: string, currency: string) => returnTotals([{ compensation: 'refund', refundAmount: amount }], currency).refund.amount.amount;
    expect(refund('1000.500000', 'JPY')).toBe('1001');
    expect(refund('1000.499999', 'JPY')).toBe('1000');
    expect(refund('1.000500', 'KWD')).toBe('1.001');
    expect(refund('0.125000', 'EUR')).toBe('0.13');
    expect(returnTotals([{ compensation: 'exchange', refundAmount: '12.000000' }], 'EUR').exchange.amount).toEqual({ amount: '12.00', currency: 'EUR' });
  });

  it('compensates by refund unless asked otherwise; a same-item replacement is an exchange', () => {
    expect(itemCompensation(undefined)).toBe('refund');
    expect(itemCompensation(null)).toBe('refund');
    expect(itemCompensation('store_credit')).toBe('store_credit');
    expect(itemCompensation('exchange')).toBe('exchange');
    expect(itemCompensation('same_item_replacement')).toBe('exchange');
  });

  it("totals an order's lines, discounts, taxes and shipping", () => {
    const totals = orderTotals(
      [
        { price: '10.00', tax: '1.50', discount: '0.50', quantity: 2 },
        { price: '5.555', tax: '0', discount: '0', quantity: 1 },
      ],
      '4.99',
      'USD',
    );
    expect(totals).toEqual({
      // 20.00 + 5.555
      lineItemsTotal: { amount: '25.56', currency: 'USD' },
      discounts: { amount: '0.50', currency: 'USD' },
      taxes: { amount: '1.50', currency: 'USD' },
      shippingCost: { amount: '4.99', currency: 'USD' },
      // 25.555 - 0.50 + 1.50 + 4.99 = 31.545, rounded once
      total: { amount: '31.55', currency: 'USD' },
    });
  });
});

describe('returnable quantities', () => {
  it('leaves the ordered units less those returns hold, never below zero', () => {
    expect(returnableUnits(5, 0)).toBe(5);
    expect(returnableUnits(5, 2)).toBe(3);
    expect(returnableUnits(5, 5)).toBe(0);
    expect(returnableUnits(2, 3)).toBe(0);
  });

  it('lets an order update keep a line with returned units only with at least that quantity', () => {
    expect(keepsReturnedUnits(3, 2)).toBe(true);
    expect(keepsReturnedUnits(2, 2)).toBe(true);
    expect(keepsReturnedUnits(1, 2)).toBe(false);
    // The update drops the line.
    expect(keepsReturnedUnits(undefined, 1)).toBe(false);
  });
});
