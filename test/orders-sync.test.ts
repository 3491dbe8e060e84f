import { describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';

type Json = Record<string, any>;

const usd = (amount: string) => ({ presentmentMoney: { amount, currencyCode: 'USD' }, shopMoney: { amount, currencyCode: 'USD' } });

/** An order as the real platform's custom integration pushes it (its order-sync body). */
function syncBody(id: string, overrides: Json = {}): Json {
  return {
    id,
    type: 'order',
    createdAt: '2026-10-30T08:00:00Z',
    updatedAt: '2026-10-30T08:00:00Z',
    presentmentCurrency: 'USD',
    shopCurrency: 'USD',
    customer: { email: 'grace@example.com', phone: '+14155550111', firstName: 'Grace', lastName: 'Hopper', tags: ['vip'] },
    lineItems: [
      {
        id: 'line-a',
        quantity: 2,
        priceSet: usd('30.00'),
        title: 'Jacket',
        variantTitle: 'Navy / L',
        productId: 'prod-jacket',
        variantId: 'var-jacket-l',
        sku: 'JKT-NVY-L',
        weight: { value: 2, unit: 'lb' },
        taxLines: [{ priceSet: usd('3.00'), rate: '0.05', title: 'Tax' }, { priceSet: usd('1.80'), rate: '0.03', title: 'City tax' }],
        discounts: [{ amountSet: usd('6.00'), discountId: 'line-10' }],
      },
      { id: 'line-b', quantity: 1, priceSet: usd('6.00'), title: 'Socks', variantTitle: null, productId: 'prod-socks', sku: 'SOCKS' },
    ],
    // 6.00 off the order, spread by line value: jacket 54.00, socks 6.00 of 60.00.
    orderDiscounts: [{ amountSet: usd('6.00'), discountId: 'order-10', discountCode: 'TENOFF' }],
    shippingLines: [
      { id: 'ship-1', title: 'Ground', priceSet: usd('7.50') },
      { id: 'ship-2', title: 'Insurance', priceSet: usd('1.00') },
    ],
    fulfillments: [{ id: 'f-1', lineItems: [{ id: 'line-a', quantity: 2 }] }],
    shippingAddress: { address1: '7 Navy Yard', address2: 'Apt 2', city: 'Arlington', provinceCode: 'VA', zip: '22202', countryCode: 'US' },
    tags: ['web'],
    ...overrides,
  };
}

describe('the order-sync body end to end', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Acme');

  it('pushes an order in the real platform\'s shape, returns a line of it with a same-item replacement, and reads both back', async () => {
    const pushed = await pushOrder(app, acme, syncBody('SYNC-1'));
    expect(pushed.status).toBe(200);
    expect(pushed.body).toEqual({ message: 'Order synced.', orderId: 'SYNC-1', redoId: expect.stringMatching(/^ord_/) });

    const created = await postReturn(
      app,
      acme,
      returnBody('SYNC-1', [
        { lineItemId: 'line-a', quantity: 1, reason: 'Too big', compensation: 'same_item_replacement' },
        { lineItemId: 'line-b', quantity: 1, reason: 'Holes', compensation: 'refund' },
      ]),
    );
    expect(created.status).toBe(201);
    const ret = created.body.return;
    expect(ret.compensationMethods.sort()).toEqual(['exchange', 'refund']);
    expect(ret.items[0]).toMatchObject({ refund: { type: 'exchange' }, exchangeItem: { product: { externalId: 'prod-jacket', name: 'Jacket' }, variant: { externalId: 'var-jacket-l', name: 'Navy / L' }, quantity: 1 } });
    expect(ret.exchange).toEqual({
      items: [{ id: ret.items[0].id, quantity: 1, variant: { name: 'Navy / L', externalId: 'var-jacket-l', sku: 'JKT-NVY-L' }, product: { name: 'Jacket', externalId: 'prod-jacket' } }],
      provision: 'instant',
      itemCount: 1,
    });
    expect(ret.source).toEqual({
      emailAddress: 'grace@example.com',
      mailingAddress: { line1: '7 Navy Yard', line2: 'Apt 2', city: 'Arlington', state: 'VA', postalCode: '22202', country: 'US' },
      name: { given: 'Grace', surname: 'Hopper' },
      phoneNumber: '+14155550111',
    });

    const read = await (await app.request(`/v2.2/returns/${ret.id}`, { token: acme.apiSecret })).json();
    expect(read.return.items.map((i: Json) => i.id)).toEqual(ret.items.map((i: Json) => i.id));
    expect(read.order).toEqual({
      id: pushed.body.redoId,
      name: 'SYNC-1',
      externalId: 'SYNC-1',
      customer: { name: { given: 'Grace', surname: 'Hopper' }, emailAddress: 'grace@example.com', phoneNumber: '+14155550111' },
      // Lines 2 x 30.00 + 6.00; discounts 6.00 on the line + 6.00 off the order; taxes 4.80; shipping 8.50.
      lineItemsTotal: { amount: '66.00', currency: 'USD' },
      discounts: { amount: '12.00', currency: 'USD' },
      taxes: { amount: '4.80', currency: 'USD' },
      shippingCost: { amount: '8.50', currency: 'USD' },
      total: { amount: '67.30', currency: 'USD' },
      protection: { covered: false, returnsCoverage: false, packageProtection: false, finalSaleCoverage: false },
      items: [
        {
          id: expect.stringMatching(/^oli_/),
          externalId: 'line-a',
          fulfillmentLocationId: null,
          price: { amount: '30.00', currency: 'USD' },
          product: { name: 'Jacket', externalId: 'prod-jacket' },
          quantity: 2,
          // 2 lb in kilograms.
          variant: { name: 'Navy / L', externalId: 'var-jacket-l', sku: 'JKT-NVY-L', weight: { kg: 0.9072 } },
        },
        {
          id: expect.stringMatching(/^oli_/),
          externalId: 'line-b',
          fulfillmentLocationId: null,
          price: { amount: '6.00', currency: 'USD' },
          product: { name: 'Socks', externalId: 'prod-socks' },
          quantity: 1,
          variant: { name: 'Socks', sku: 'SOCKS' },
        },
      ],
    });
    // The refund of the returned sock: 6.00 less its share of the order discount (6.00 x 6/60 = 0.60).
    expect(read.return.items[1].refund.amount).toEqual({ amount: '5.40', currency: 'USD' });
  });

  it('updates the order when the same id is synced again, and keeps taking the contract\'s body (200 {order})', async () => {
    const first = await pushOrder(app, acme, syncBody('SYNC-2'));
    const again = await pushOrder(app, acme, syncBody('SYNC-2', { customer: { email: 'grace@example.com', firstName: 'Grace', lastName: 'Murray Hopper' } }));
    expect(again.body.redoId).toBe(first.body.redoId);
    const contract = await pushOrder(app, acme, orderBody({ id: 'CONTRACT-1' }));
    expect(contract.status).toBe(200);
    expect(contract.body.order.externalId).toBe('CONTRACT-1');
  });

  it('refuses what breaks the sync body with pointers, as it does the contract body, and stores nothing', async () => {
    const cases: [Json, string][] = [
      [syncBody('BAD-1', { presentmentCurrency: 'EURO' }), '/presentmentCurrency'],
      [syncBody('BAD-2', { customer: { email: 'grace@example.com', phone: '555-0111', firstName: 'G', lastName: 'H' } }), '/customer/phone'],
      [syncBody('BAD-3', { lineItems: [] }), '/lineItems'],
      [syncBody('BAD-4', { presentmentCurrency: 'EUR', shopCurrency: 'EUR' }), '/lineItems/0/priceSet/presentmentMoney/currencyCode'],
      [syncBody('BAD-5', { shippingAddress: { city: 'Arlington', provinceCode: 'VA', zip: '22202', countryCode: 'US' } }), '/shippingAddress/address1'],
      [syncBody('BAD-6', { surprise: true }), '/surprise'],
      [{ ...syncBody('BAD-7'), lineItems: [{ ...syncBody('x').lineItems[0], weight: { value: 1, unit: 'stone' } }] }, '/lineItems/0/weight/unit'],
      // A unit named after an Object.prototype member is no unit (it was looked up on a plain object).
      [{ ...syncBody('BAD-7b'), lineItems: [{ ...syncBody('x').lineItems[0], weight: { value: 1, unit: 'constructor' } }] }, '/lineItems/0/weight/unit'],
      [{ ...syncBody('BAD-8'), lineItems: [{ ...syncBody('x').lineItems[1], quantity: 1.5 }] }, '/lineItems/0/quantity'],
    ];
    for (const [body, pointer] of cases) {
      const res = await pushOrder(app, acme, body);
      expect(res.status, pointer).toBe(400);
      expect(res.body.type).toBe('/problems/validation-failed');
      expect(res.body.errors.map((e: Json) => e.pointer), pointer).toContain(pointer);
      const order = await postReturn(app, acme, returnBody(body.id, [{ lineItemId: 'line-a', quantity: 1, reason: 'r' }]));
      expect(order.status, `${pointer}: nothing stored`).toBe(404);
    }
  });
});
