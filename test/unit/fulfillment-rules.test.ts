import { describe, expect, it } from 'vitest';
import { applyTrackingEntry, defaultMessage, estimatedDate, initialStatus, unfulfilledUnits, type TrackingState } from '../../subgraphs/returns/fulfillment.rules.js';
import { orderFromApi } from '../../subgraphs/returns/order-api.schemas.js';
import { spreadByValue } from '../../subgraphs/returns/order.rules.js';
import { returnableUnits } from '../../subgraphs/returns/return.rules.js';
import { Decimal } from '../../platform/money.js';

const at = (iso: string) => new Date(iso);
const state = (status: TrackingState['status'], statusAt: string | null = null): TrackingState => ({ status, statusAt: statusAt ? at(statusAt) : null, deliveredAt: null });

describe('fulfillment rules', () => {
  it('a status entry sets the status unless an entry already applied is newer; an event never does', () => {
    const moved = applyTrackingEntry(state('pre_transit'), { status: 'in_transit', at: at('2026-11-05T10:00:00Z') });
    expect(moved).toEqual({ status: 'in_transit', statusAt: at('2026-11-05T10:00:00Z'), deliveredAt: null });
    const delivered = applyTrackingEntry(moved, { status: 'delivered', at: at('2026-11-07T10:00:00Z') });
    expect(delivered).toEqual({ status: 'delivered', statusAt: at('2026-11-07T10:00:00Z'), deliveredAt: at('2026-11-07T10:00:00Z') });
    expect(applyTrackingEntry(delivered, { status: 'out_for_delivery', at: at('2026-11-06T10:00:00Z') })).toBe(delivered);
    expect(applyTrackingEntry(delivered, { status: 'delayed', at: at('2026-11-08T10:00:00Z') })).toBe(delivered);
    // An entry of the same instant as the one in force wins (the later report of equal time).
    expect(applyTrackingEntry(delivered, { status: 'return_to_sender', at: at('2026-11-07T10:00:00Z') }).status).toBe('return_to_sender');
    // A shipment that left delivered keeps the time it was delivered.
    expect(applyTrackingEntry(delivered, { status: 'return_to_sender', at: at('2026-11-09T10:00:00Z') }).deliveredAt).toEqual(at('2026-11-07T10:00:00Z'));
  });

  it('starts pre_transit with a tracking number, unknown without, or as the dummy tracker says', () => {
    expect(initialStatus({ code: '1Z' }, undefined)).toBe('pre_transit');
    expect(initialStatus(null, undefined)).toBe('unknown');
    expect(initialStatus(null, 'delivered')).toBe('delivered');
  });

  it('counts what is left to fulfil, and returns only what shipped once an order reports fulfillments', () => {
    expect(unfulfilledUnits(3, 1)).toBe(2);
    expect(unfulfilledUnits(3, 5)).toBe(0);
    expect(returnableUnits(3, 1)).toBe(2);
    expect(returnableUnits(3, 1, 2)).toBe(1);
    expect(returnableUnits(3, 0, 0)).toBe(0);
    expect(returnableUnits(3, 2, 5)).toBe(1);
  });

  it('words a status and reads an estimated date as written', () => {
    expect(defaultMessage('out_for_delivery')).toBe('Out for delivery');
    expect(estimatedDate('2026-11-10T23:30:00-08:00')).toBe('2026-11-10');
  });
});

describe('the orders API body as an order', () => {
  it('shares an amount over values exactly (6 places, the last line takes the rest)', () => {
    const shares = spreadByValue('10', ['1', '1', '1']);
    expect(shares.map((s) => s.toFixed())).toEqual(['3.333333', '3.333333', '3.333334']);
    expect(shares.reduce((a, s) => a.plus(s), new Decimal(0)).toFixed()).toBe('10');
    expect(spreadByValue('3', ['0', '0']).map((s) => s.toFixed())).toEqual(['1.5', '1.5']);
    expect(spreadByValue('0', ['5', '5']).map((s) => s.toFixed())).toEqual(['0', '0']);
  });

  it('spreads the tax and the discount the lines do not carry; keeps the stated amounts to read back', () => {
    const order = orderFromApi({
      orderId: 'X-1',
      createdAt: '2026-11-01T00:00:00Z',
      lineItems: [
        { id: 'a', productId: 'p', title: 'A', quantity: 2, price: 19.99, discount: 1 },
        { id: 'b', productId: 'q', title: 'B', quantity: 1, price: 0.1 },
      ],
      totalTax: 4,
      totalDiscount: 3,
      shipping: { cost: 4.99, method: 'Ground', address: { address1: '1 Main St', province: 'IL' } },
      customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
    });
    expect(order).toMatchObject({ provider: 'custom', externalId: 'X-1', name: 'X-1', currency: 'USD', shippingCost: '4.99', customer: { name: 'Ada Lovelace', firstName: null } });
    expect(order.shippingAddress).toEqual({ line1: '1 Main St', line2: null, city: null, state: 'IL', postalCode: null, country: null });
    // Values 38.98 and 0.1: the extra 2 of discount and the 4 of tax shared by them.
    const [a, b] = order.lineItems;
    expect(new Decimal(a!.tax).plus(b!.tax).toFixed()).toBe('4');
    expect(new Decimal(a!.discount).plus(b!.discount).toFixed()).toBe('3');
    expect(a!.discount).toBe(new Decimal(1).plus(new Decimal(2).times('38.98').dividedBy('39.08').toDecimalPlaces(6, Decimal.ROUND_DOWN)).toFixed());
    expect([a!.statedDiscount, b!.statedDiscount]).toEqual(['1', '0']);
    expect(order.api).toMatchObject({ totalTax: '4', totalDiscount: '3', shippingMethod: 'Ground' });
  });
});
