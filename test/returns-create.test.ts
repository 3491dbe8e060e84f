import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
const usd = (amount: string) => ({ amount, currency: 'USD' });

describe('POST /v2.2/stores/{storeId}/returns', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Acme');
  beforeAll(async () => {
    await app.graphql(
      `mutation($s: ID!) { updateStoreSettings(storeId: $s, input: {returnLocationId: "loc_returns", returnPhoneNumber: "+14155550199",
         returnAddress: {line1: "9 Dock Rd", city: "Reno", state: "NV", postalCode: "89501", country: "US"}}) { storeId } }`,
      { s: acme.storeId },
      acme.apiSecret,
    );
  });

  it('creates a complete return (201 {return, externalRMAResponses}) with the fields of the spec', async () => {
    await pushOrder(app, acme, orderBody({ id: 'R-1', name: '#5001' }));
    const res = await postReturn(
      app,
      acme,
      returnBody('R-1', [
        { lineItemId: 'li-1', quantity: 1, reason: 'Too small', reasonCode: 'SIZE', notes: 'Fits tight' },
        { lineItemId: 'li-2', quantity: 1, reason: 'Changed my mind', compensation: 'store_credit' },
      ], { notes: 'Customer called' }),
    );
    expect(res.status).toBe(201);
    const ret = res.body.return;
    expect(res.body.externalRMAResponses).toEqual([]);
    expect(Object.keys(ret).sort()).toEqual(
      [
        // exchange, internalCreatedByName and shipment are optional in v2.2 clients' schema: left out while unknown.
        'id', 'createdAt', 'updatedAt', 'status', 'type', 'destination', 'source', 'order', 'items', 'giftCards', 'compensationMethods',
        'completeWithNoAction', 'externalOrderIds', 'externalReturnIds', 'notes', 'protection',
        'shipments', 'dropoffs', 'platformOrderIds', 'tags', 'totals',
      ].sort(),
    );
    expect(ret).toMatchObject({
      id: expect.stringMatching(/^ret_/),
      createdAt: ISO,
      updatedAt: ISO,
      status: 'open',
      type: 'return',
      destination: { mailingAddress: { line1: '9 Dock Rd', city: 'Reno', state: 'NV', postalCode: '89501', country: 'US' }, phoneNumber: '+14155550199' },
      source: {
        emailAddress: 'ada@example.com',
        mailingAddress: { line1: '1 Main St', city: 'Springfield', state: 'IL', postalCode: '62701', country: 'US' },
        name: { given: 'Ada', surname: 'Lovelace' },
        phoneNumber: '+14155550100',
      },
      order: { id: expect.stringMatching(/^ord_/), name: '#5001' },
      giftCards: [],
      compensationMethods: ['refund', 'store_credit'],
      completeWithNoAction: false,
      externalOrderIds: ['R-1'],
      externalReturnIds: [],
      notes: [{ message: 'Customer called' }],
      protection: { covered: false, returnsCoverage: false, packageProtection: false, finalSaleCoverage: false, labelPayer: null, labelPayerReason: null },
      shipments: [],
      dropoffs: [],
      platformOrderIds: ['R-1'],
      tags: [],
      // Shirt: 25.00 + (4.00 tax - 2.00 discount) / 2 units = 26.00 per unit; hat 10.00 as store credit.
      totals: { charge: { amount: usd('0.00') }, exchange: { amount: usd('0.00') }, refund: { amount: usd('26.00') }, storeCredit: { amount: usd('10.00') } },
    });
    expect(ret.items).toHaveLength(2);
    expect(Object.keys(ret.items[0]).sort()).toEqual(
      [
        'id', 'orderItem', 'quantity', 'reason', 'customerComment', 'grade', 'greenReturn', 'outcome', 'shipmentGroupIds',
        'productId', 'reasonCode', 'reasons', 'reasonCodes', 'multipleChoiceQuestions',
        'assessments', 'refund', 'productValueNoTaxNoAdjustment', 'sku', 'upc', 'status', 'variantId',
      ].sort(),
    );
    expect(ret.items[0]).toMatchObject({
      id: expect.stringMatching(/^rti_/),
      orderItem: { id: expect.stringMatching(/^oli_/), line_item_id: 'li-1' },
      quantity: 1,
      reason: 'Too small',
      customerComment: 'Fits tight',
      greenReturn: false,
      // The merchant's processing outcome: none until the return is processed.
      outcome: null,
      productId: 'prod-1',
      variantId: 'var-1',
      sku: 'SKU-1',
      reasonCode: 'SIZE',
      reasons: ['Too small'],
      reasonCodes: ['SIZE'],
      refund: { amount: usd('26.00'), type: 'refund' },
      productValueNoTaxNoAdjustment: { amount: usd('25.00') },
      status: 'active',
    });
    expect(ret.items[1]).toMatchObject({ outcome: null, refund: { amount: usd('10.00'), type: 'store_credit' }, reasonCodes: [] });
  });

  it('splits refunds exactly (no binary floats): 3 units sharing 1.00 of tax', async () => {
    await pushOrder(app, acme, orderBody({ id: 'R-2' }, [{ id: 'x', quantity: 3, price: '9.99', tax: '1.00' }]));
    const res = await postReturn(app, acme, returnBody('R-2', [{ lineItemId: 'x', quantity: 2, reason: 'r' }]));
    // (9.99 + 1.00/3) x 2 = 20.6466... -> 20.65
    expect(res.body.return.totals.refund.amount.amount).toBe('20.65');
  });

  it('answers 404 order-not-found for an unknown order (or provider)', async () => {
    const res = await postReturn(app, acme, returnBody('nope', [{ lineItemId: 'li-1', quantity: 1, reason: 'r' }]));
    expect(res.status).toBe(404);
    expect(res.body.type).toBe('/problems/order-not-found');
    await pushOrder(app, acme, orderBody({ id: 'R-3' }));
    const other = await postReturn(app, acme, { data: { provider: 'shopify', externalOrderId: 'R-3', items: [{ lineItemId: 'li-1', quantity: 1, reason: 'r' }] } });
    expect(other.status).toBe(404);
  });

  it('answers 400 for a line item not in the order, and for one listed twice', async () => {
    await pushOrder(app, acme, orderBody({ id: 'R-4' }));
    const unknown = await postReturn(app, acme, returnBody('R-4', [{ lineItemId: 'li-9', quantity: 1, reason: 'r' }]));
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([{ pointer: '/data/items/0/lineItemId', detail: expect.stringContaining('not a line item') }]);
    const twice = await postReturn(app, acme, returnBody('R-4', [{ lineItemId: 'li-1', quantity: 1, reason: 'r' }, { lineItemId: 'li-1', quantity: 1, reason: 'r' }]));
    expect(twice.status).toBe(400);
    expect(twice.body.errors[0].pointer).toBe('/data/items/1/lineItemId');
  });

  it.each([
    [{}, '/data'],
    [{ data: { externalOrderId: 'x', items: [{ lineItemId: 'a', quantity: 1, reason: 'r' }] } }, '/data/provider'],
    [{ data: { provider: 'custom', items: [{ lineItemId: 'a', quantity: 1, reason: 'r' }] } }, '/data/externalOrderId'],
    [{ data: { provider: 'custom', externalOrderId: 'x', items: [] } }, '/data/items'],
    [{ data: { provider: 'custom', externalOrderId: 'x', items: [{ quantity: 1, reason: 'r' }] } }, '/data/items/0/lineItemId'],
    [{ data: { provider: 'custom', externalOrderId: 'x', items: [{ lineItemId: 'a', quantity: 0, reason: 'r' }] } }, '/data/items/0/quantity'],
    [{ data: { provider: 'custom', externalOrderId: 'x', items: [{ lineItemId: 'a', quantity: 1 }] } }, '/data/items/0/reason'],
    [{ data: { provider: 'custom', externalOrderId: 'x', items: [{ lineItemId: 'a', quantity: 1, reason: 'r', compensation: 'cash' }] } }, '/data/items/0/compensation'],
    [{ data: { provider: 'custom', externalOrderId: 'x', type: 'gift', items: [{ lineItemId: 'a', quantity: 1, reason: 'r' }] } }, '/data/type'],
  ])('answers 400 with a pointer for an invalid body (%j)', async (body, pointer) => {
    const res = await postReturn(app, acme, body);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
  });

  it('answers 409 quantity-not-returnable counting every open return, and not rejected or deleted ones', async () => {
    await pushOrder(app, acme, orderBody({ id: 'R-5' }));
    const first = await postReturn(app, acme, returnBody('R-5', [{ lineItemId: 'li-1', quantity: 1, reason: 'r' }]));
    expect(first.status).toBe(201);
    const second = await postReturn(app, acme, returnBody('R-5', [{ lineItemId: 'li-1', quantity: 1, reason: 'r' }]));
    expect(second.status).toBe(201);
    const over = await postReturn(app, acme, returnBody('R-5', [{ lineItemId: 'li-1', quantity: 1, reason: 'r' }]));
    expect(over.status).toBe(409);
    expect(over.body.type).toBe('/problems/quantity-not-returnable');
    // Rejecting one frees its unit; deleting the other frees its unit too.
    expect((await app.request(`/v2.2/returns/${first.body.return.id}/status`, { method: 'PUT', token: acme.apiSecret, headers: { 'content-type': 'application/json' }, body: '{"status":"rejected"}' })).status).toBe(204);
    expect((await postReturn(app, acme, returnBody('R-5', [{ lineItemId: 'li-1', quantity: 1, reason: 'r' }]))).status).toBe(201);
    expect((await app.request(`/v2.2/returns/${second.body.return.id}/status`, { method: 'PUT', token: acme.apiSecret, headers: { 'content-type': 'application/json' }, body: '{"status":"deleted"}' })).status).toBe(204);
    expect((await postReturn(app, acme, returnBody('R-5', [{ lineItemId: 'li-1', quantity: 1, reason: 'r' }]))).status).toBe(201);
    expect((await postReturn(app, acme, returnBody('R-5', [{ lineItemId: 'li-1', quantity: 1, reason: 'r' }]))).status).toBe(409);
  });

  it('creates warranty returns and uses the given shipping address as the source', async () => {
    await pushOrder(app, acme, orderBody({ id: 'R-6' }));
    const address = { line1: '2 Side St', city: 'Austin', state: 'TX', postalCode: '73301', country: 'US' };
    const res = await postReturn(app, acme, returnBody('R-6', [{ lineItemId: 'li-2', quantity: 1, reason: 'broken' }], { type: 'warranty', shippingAddress: address }));
    expect(res.status).toBe(201);
    expect(res.body.return.type).toBe('warranty');
    expect(res.body.return.source.mailingAddress).toEqual(address);
  });

  it('starts returns in pre_shipment when the store requires approval, and approveReturn opens them', async () => {
    const strict = await app.createAccount('Strict');
    await app.graphql(`mutation($s: ID!) { updateStoreSettings(storeId: $s, input: {requireReturnApproval: true}) { requireReturnApproval } }`, { s: strict.storeId }, strict.apiSecret);
    await pushOrder(app, strict, orderBody({ id: 'S-1' }));
    const res = await postReturn(app, strict, returnBody('S-1', [{ lineItemId: 'li-1', quantity: 1, reason: 'r' }]));
    expect(res.body.return.status).toBe('pre_shipment');
    const approved = await app.graphql<{ approveReturn: { status: string } }>(`mutation($id: ID!) { approveReturn(returnId: $id) { status } }`, { id: res.body.return.id }, strict.apiSecret);
    expect(approved.data?.approveReturn.status).toBe('open');
    const again = await app.graphql(`mutation($id: ID!) { approveReturn(returnId: $id) { status } }`, { id: res.body.return.id }, strict.apiSecret);
    expect(again.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT', problem: 'invalid-transition' });
  });

  it("answers 404 for another account's store and 403 without returns_write", async () => {
    const other = await app.createAccount('Other');
    const foreign = await app.request(`/v2.2/stores/${other.storeId}/returns`, { method: 'POST', token: acme.apiSecret, headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(foreign.status).toBe(404);
    const readOnly = await app.service.runtime.accounts.createSecret(acme.accountId, ['returns_read']);
    const denied = await app.request(`/v2.2/stores/${acme.storeId}/returns`, { method: 'POST', token: readOnly.apiSecret, headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(denied.status).toBe(403);
  });
});
