import { describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';

describe('POST /v2.2/stores/{storeId}/custom/orders', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Acme');

  const post = (body: string | object, headers: Record<string, string> = { 'content-type': 'application/json' }, token = acme.apiSecret) =>
    app.request(`/v2.2/stores/${acme.storeId}/custom/orders`, { method: 'POST', token, headers, body: typeof body === 'string' ? body : JSON.stringify(body) });

  it('creates an order and answers 200 {order} in the read shape of the spec', async () => {
    const body = orderBody({ id: 'A-1', name: '#1001' });
    const res = await pushOrder(app, acme, body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      order: {
        id: expect.stringMatching(/^ord_/),
        name: '#1001',
        externalId: 'A-1',
        customer: { name: { given: 'Ada', surname: 'Lovelace' }, emailAddress: 'ada@example.com', phoneNumber: '+14155550100' },
        // 2 x 25.00 + 1 x 10.00 = 60.00; discounts 2.00; taxes 4.00; shipping 5.00 => 67.00
        lineItemsTotal: { amount: '60.00', currency: 'USD' },
        discounts: { amount: '2.00', currency: 'USD' },
        taxes: { amount: '4.00', currency: 'USD' },
        shippingCost: { amount: '5.00', currency: 'USD' },
        total: { amount: '67.00', currency: 'USD' },
        protection: { covered: false, returnsCoverage: false, packageProtection: false, finalSaleCoverage: false },
        items: [
          {
            id: expect.stringMatching(/^oli_/),
            externalId: 'li-1',
            fulfillmentLocationId: null,
            price: { amount: '25.00', currency: 'USD' },
            product: { name: 'Shirt', externalId: 'prod-1' },
            quantity: 2,
            variant: { name: 'M', externalId: 'var-1', sku: 'SKU-1', weight: { kg: 0.3 } },
          },
          {
            id: expect.stringMatching(/^oli_/),
            externalId: 'li-2',
            fulfillmentLocationId: null,
            price: { amount: '10.00', currency: 'USD' },
            product: { name: 'Hat', externalId: 'prod-2' },
            quantity: 1,
            // No variant title: the product title stands in (clients require a name); no weight: left out.
            variant: { name: 'Hat', externalId: 'var-2', sku: 'SKU-2' },
          },
        ],
      },
    });
  });

  it('updates the order with the same external id (200 again, same service ids)', async () => {
    const first = await pushOrder(app, acme, orderBody({ id: 'A-2', name: '#2001' }));
    const again = await pushOrder(app, acme, orderBody({ id: 'A-2', name: '#2001-renamed', currency: 'EUR' }));
    expect(again.status).toBe(200);
    expect(again.body.order.id).toBe(first.body.order.id);
    expect(again.body.order.name).toBe('#2001-renamed');
    expect(again.body.order.total.currency).toBe('EUR');
    expect(again.body.order.items.map((i: { id: string }) => i.id)).toEqual(first.body.order.items.map((i: { id: string }) => i.id));
  });

  it('rounds money to the currency minor unit (JPY has none)', async () => {
    const res = await pushOrder(app, acme, orderBody({ id: 'JP-1', currency: 'JPY', shippingCost: '500' }, [{ id: 'x', quantity: 3, price: '1200' }]));
    expect(res.body.order.total).toEqual({ amount: '4100', currency: 'JPY' });
  });

  it.each([
    [{ id: undefined }, '/id'],
    [{ name: '' }, '/name'],
    [{ currency: 'XXY' }, '/currency'],
    [{ currency: undefined }, '/currency'],
    [{ customer: undefined }, '/customer'],
    [{ customer: { email: 'not-an-email' } }, '/customer/email'],
    [{ customer: { email: 'a@b.co', phoneNumber: '0123' } }, '/customer/phoneNumber'],
    [{ lineItems: [] }, '/lineItems'],
    [{ shippingCost: 5 }, '/shippingCost'],
    [{ createdAt: 'yesterday' }, '/createdAt'],
    [{ surprise: true }, '/surprise'],
  ])('answers 400 with a pointer for an invalid body (%j)', async (override, pointer) => {
    const res = await post(orderBody(override as Record<string, unknown>));
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.type).toBe('/problems/validation-failed');
    expect(body.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
  });

  it('validates every line and lists every violation at once', async () => {
    const res = await post(orderBody({}, [
      { id: 'a', quantity: 0, price: '1.00' },
      { id: 'a', quantity: 1, price: '-1.00' },
      { quantity: 1, price: '1.0000001' } as never,
    ]));
    expect(res.status).toBe(400);
    const pointers = (await res.json()).errors.map((e: { pointer: string }) => e.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/lineItems/0/quantity', '/lineItems/1/id', '/lineItems/1/price', '/lineItems/2/id', '/lineItems/2/price']));
  });

  it('answers 400 invalid-json, 415 and 413 in the pipeline order', async () => {
    const bad = await post('{"id": ');
    expect(bad.status).toBe(400);
    expect((await bad.json()).type).toBe('/problems/invalid-json');
    const text = await post('id=1', { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    expect((await text.json()).type).toBe('/problems/unsupported-media-type');
    const big = await post(JSON.stringify({ ...orderBody(), padding: 'x'.repeat(1024 * 1024 + 10) }));
    expect(big.status).toBe(413);
    expect((await big.json()).type).toBe('/problems/payload-too-large');
  });

  it('checks the scope before the body (403 even for malformed JSON)', async () => {
    const limited = await app.service.runtime.accounts.createSecret(acme.accountId, ['returns_read']);
    const res = await post('{not json', { 'content-type': 'application/json' }, limited.apiSecret);
    expect(res.status).toBe(403);
    expect((await res.json()).detail).toContain('orders_write');
  });

  it('refuses an update that would take away units already in returns (409), and allows one that keeps them', async () => {
    const body = orderBody({ id: 'A-3' });
    await pushOrder(app, acme, body);
    const ret = await postReturn(app, acme, returnBody('A-3', [{ lineItemId: 'li-1', quantity: 2, reason: 'too small' }]));
    expect(ret.status).toBe(201);
    const lines = body.lineItems as Record<string, unknown>[];
    const dropped = await pushOrder(app, acme, { ...body, lineItems: [lines[1]] });
    expect(dropped.status).toBe(409);
    expect(dropped.body.type).toBe('/problems/order-line-has-returns');
    const shrunk = await pushOrder(app, acme, { ...body, lineItems: [{ ...lines[0], quantity: 1 }, lines[1]] });
    expect(shrunk.status).toBe(409);
    const kept = await pushOrder(app, acme, { ...body, lineItems: [{ ...lines[0], quantity: 3 }] });
    expect(kept.status).toBe(200);
    expect(kept.body.order.items.map((i: { externalId: string }) => i.externalId)).toEqual(['li-1']);
    // The return still reads, with its line.
    const read = await app.request(`/v2.2/returns/${ret.body.return.id}`, { token: acme.apiSecret });
    expect((await read.json()).return.items[0].orderItem.line_item_id).toBe('li-1');
  });

  it('refuses a provider in the custom body (the endpoint is the custom provider)', async () => {
    const res = await post(orderBody({ provider: 'shopify' }));
    expect(res.status).toBe(400);
    expect((await res.json()).errors[0].pointer).toBe('/provider');
  });

  it('takes orders of any provider through GraphQL upsertOrder', async () => {
    const res = await app.graphql<{ upsertOrder: { id: string; provider: string; name: string; total: { amount: string } } }>(
      `mutation($storeId: ID!, $input: JSON!) { upsertOrder(storeId: $storeId, input: $input) { id provider name total { amount } } }`,
      { storeId: acme.storeId, input: { ...orderBody({ id: 'SH-1' }), provider: 'shopify' } },
      acme.apiSecret,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!.upsertOrder).toMatchObject({ provider: 'shopify', total: { amount: '67.00' } });
    const invalid = await app.graphql(`mutation($s: ID!) { upsertOrder(storeId: $s, input: {id: "x"}) { id } }`, { s: acme.storeId }, acme.apiSecret);
    expect(invalid.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', problem: 'validation-failed' });
  });
});
