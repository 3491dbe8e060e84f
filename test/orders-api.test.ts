import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql } from './inventory-fixtures.js';
import { useTestAccount, useTestApp } from './support/app.js';
import { eventually } from './support/eventually.js';
import { apiOrder, v22 } from './support/orders.js';
import { startReceiver, type Receiver } from './support/receiver.js';
import { postReturn, returnBody } from './support/returns.js';
import { createWebhook } from './support/webhooks.js';

/**
 * The real platform's orders API: orders and their fulfillments, and what fulfillments feed
 * (returnable units, GraphQL, the order webhook topic, returnStats' FULFILLED basis).
 */
describe('the orders API', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Orders API');
  const other = useTestAccount(app, 'Another account');

  const create = (body: Record<string, unknown>, account = acme) => v22(app, account, 'POST', `/stores/${account.storeId}/orders`, body);
  const read = (ref: string, account = acme) => v22(app, account, 'GET', `/stores/${account.storeId}/orders/${encodeURIComponent(ref)}`);
  const fulfil = (ref: string, body: Record<string, unknown>) => v22(app, acme, 'POST', `/stores/${acme.storeId}/orders/${encodeURIComponent(ref)}/fulfillments`, body);
  const track = (ref: string, fulfillmentId: string, body: Record<string, unknown>) =>
    v22(app, acme, 'POST', `/stores/${acme.storeId}/orders/${encodeURIComponent(ref)}/fulfillments/${encodeURIComponent(fulfillmentId)}/shipment-status`, body);
  const returnOf = (orderId: string, items: { lineItemId: string; quantity: number }[]) => postReturn(app, acme, returnBody(orderId, items.map((i) => ({ ...i, reason: 'Too small' }))));

  it("spreads the order's tax, and the part of its discount the lines do not carry, over the lines by value: a return refunds each unit its share", async () => {
    // Lines worth 50 (a1: 2 x 25) and 10 (a2): a1 takes 5 of the tax and 10 of the discount.
    const order = apiOrder({ totalTax: 6, totalDiscount: 12 });
    expect((await create(order)).status).toBe(200);
    const ret = await returnOf(order.orderId, [{ lineItemId: 'a1', quantity: 1 }]);
    expect(ret.status).toBe(201);
    // 25 + (5 - 10) / 2 per unit.
    expect(ret.body.return.items[0].refund).toEqual({ amount: { amount: '22.50', currency: 'USD' }, type: 'refund' });
    // Read back as stated: no line discount was stated, the order's totals as sent.
    const doc = (await read(order.orderId)).body;
    expect(doc.lineItems.map((l: { discount: number }) => l.discount)).toEqual([0, 0]);
    expect(doc).toMatchObject({ totalTax: 6, totalDiscount: 12, totalPrice: null, currencyCode: 'USD' });
  });

  it('refuses every invalid field with its pointer and writes nothing', async () => {
    const body = apiOrder({ currencyCode: 'XXQ', lineItems: [{ id: 'a1', productId: 'P', title: 'T', quantity: 0, price: -1 }], customer: { email: 'nope' }, extra: 1 });
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/currencyCode', '/customer/email', '/extra', '/lineItems/0/price', '/lineItems/0/quantity']);
    expect((await read(body.orderId)).status).toBe(404);
  });

  it('returns of an order that reports fulfillments take back fulfilled units only; a cancelled fulfillment ships nothing', async () => {
    const order = apiOrder();
    const { orderId: serviceId } = (await create(order)).body;
    // No fulfillment reported: every ordered unit is returnable (orders pushed without fulfillments).
    const free = apiOrder();
    await create(free);
    expect((await returnOf(free.orderId, [{ lineItemId: 'a1', quantity: 2 }])).status).toBe(201);

    expect((await fulfil(order.orderId, { fulfillmentId: 'F1', lineItems: [{ id: 'a1', quantity: 1 }], tracking: { carrier: 'UPS', code: '1Z1' } })).status).toBe(200);
    const tooMany = await returnOf(order.orderId, [{ lineItemId: 'a1', quantity: 2 }]);
    expect(tooMany.status).toBe(409);
    expect(tooMany.body.detail).toContain('1 fulfilled');
    expect((await returnOf(order.orderId, [{ lineItemId: 'a2', quantity: 1 }])).status).toBe(409);
    const one = await returnOf(order.orderId, [{ lineItemId: 'a1', quantity: 1 }]);
    expect(one.status).toBe(201);

    // Fulfilled through the service id too; then the rest ships.
    expect((await fulfil(serviceId, { fulfillmentId: 'F2', lineItems: [{ id: 'a1', quantity: 1 }, { id: 'a2', quantity: 1 }] })).status).toBe(200);
    const rest = await returnOf(order.orderId, [{ lineItemId: 'a1', quantity: 1 }, { lineItemId: 'a2', quantity: 1 }]);
    expect(rest.status).toBe(201);

    const graph = await gql<{ return: { items: { fulfilledQuantity: number; fulfilled: boolean; fulfillmentStatus: string }[]; order: { items: { fulfilledQuantity: number }[]; fulfillments: { fulfillmentId: string }[] } } }>(
      app,
      'query($id: ID!) { return(id: $id) { items { fulfilledQuantity fulfilled fulfillmentStatus } order { items { fulfilledQuantity } fulfillments { fulfillmentId } } } }',
      { id: one.body.return.id },
    );
    expect(graph.return.items).toEqual([{ fulfilledQuantity: 2, fulfilled: true, fulfillmentStatus: 'unknown' }]);
    expect(graph.return.order.items.map((i) => i.fulfilledQuantity)).toEqual([2, 1]);
    expect(graph.return.order.fulfillments.map((f) => f.fulfillmentId)).toEqual(['F1', 'F2']);

    // A cancelled fulfillment: its units are not fulfilled (and may be fulfilled again).
    const cancelled = apiOrder();
    await create(cancelled);
    await fulfil(cancelled.orderId, { fulfillmentId: 'C1', lineItems: [{ id: 'a1', quantity: 2 }] });
    expect((await track(cancelled.orderId, 'C1', { status: 'cancelled' })).body.fulfillment.status).toBe('cancelled');
    expect((await returnOf(cancelled.orderId, [{ lineItemId: 'a1', quantity: 1 }])).status).toBe(409);
    expect((await fulfil(cancelled.orderId, { fulfillmentId: 'C2', lineItems: [{ id: 'a1', quantity: 2 }] })).status).toBe(200);
    expect((await returnOf(cancelled.orderId, [{ lineItemId: 'a1', quantity: 2 }])).status).toBe(201);
  });

  it('keeps the newest carrier report: a status dated before the one in force is history only, an event changes no status', async () => {
    const order = apiOrder();
    await create(order);
    await fulfil(order.orderId, { fulfillmentId: 'T1', lineItems: [{ id: 'a1', quantity: 2 }], tracking: { carrier: 'FedEx', code: '7489' } });
    await track(order.orderId, 'T1', { status: 'delivered', datetime: '2026-11-10T15:00:00Z' });
    const late = await track(order.orderId, 'T1', { status: 'in_transit', message: 'Arrived at hub', datetime: '2026-11-08T09:00:00Z', estimatedDeliveryDate: '2026-11-10T00:00:00-08:00' });
    expect(late.body.fulfillment).toMatchObject({ status: 'delivered', deliveredAt: '2026-11-10T15:00:00.000Z', estimatedDeliveryDate: '2026-11-10' });
    expect(late.body.fulfillment.trackingHistory.map((e: { status: string; message: string }) => [e.status, e.message])).toEqual([
      ['in_transit', 'Arrived at hub'],
      ['delivered', 'Delivered'],
    ]);
    const event = await track(order.orderId, 'T1', { status: 'arriving_early', datetime: '2026-11-11T00:00:00Z' });
    expect(event.body.fulfillment.status).toBe('delivered');
    expect(event.body.fulfillment.trackingHistory).toHaveLength(3);
    const refused = await track(order.orderId, 'T1', { status: 'unknown' });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([{ pointer: '/status', detail: expect.any(String) }]);
  });

  it('a retried fulfillment (same id, same units) answers the one made; other units under that id are 409; a refused one writes nothing', async () => {
    const order = apiOrder();
    await create(order);
    const first = await fulfil(order.orderId, { fulfillmentId: 'R1', lineItems: [{ id: 'a1', quantity: 1 }] });
    const again = await fulfil(order.orderId, { fulfillmentId: 'R1', lineItems: [{ id: 'a1', quantity: 1 }] });
    expect(again.body).toEqual(first.body);
    expect((await fulfil(order.orderId, { fulfillmentId: 'R1', lineItems: [{ id: 'a1', quantity: 2 }] })).status).toBe(409);
    const refused = await fulfil(order.orderId, { lineItems: [{ id: 'nope', quantity: 1 }, { id: 'a2', quantity: 2 }] });
    expect(refused.status).toBe(400);
    expect(refused.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/lineItems/0/id', '/lineItems/1/quantity']);
    expect((await read(order.orderId)).body.fulfillments).toHaveLength(1);
    expect((await fulfil('no-such-order', { lineItems: [{ id: 'a1', quantity: 1 }] })).status).toBe(404);
  });

  it("finds an order by its service id, external id or name, in the caller's store only, with the orders scopes", async () => {
    const order = apiOrder();
    const { orderId } = (await create(order)).body;
    expect((await read(orderId)).body.orderId).toBe(order.orderId);
    // Another account's secret sees no such store; its own store has no such order.
    expect((await read(order.orderId, other)).status).toBe(404);
    expect((await v22(app, other, 'GET', `/stores/${acme.storeId}/orders/${order.orderId}`)).status).toBe(404);
    // Reading needs orders_read, writing orders_write (the real platform's scopes).
    const writer = await app.service.runtime.accounts.createSecret(acme.accountId, ['orders_write']);
    expect((await read(order.orderId, { ...acme, apiSecret: writer.apiSecret })).status).toBe(403);
    const reader = await app.service.runtime.accounts.createSecret(acme.accountId, ['orders_read']);
    expect((await read(order.orderId, { ...acme, apiSecret: reader.apiSecret })).status).toBe(200);
    expect((await create(apiOrder(), { ...acme, apiSecret: reader.apiSecret })).status).toBe(403);
    // The same external id in another store is another order.
    expect((await create(order, other)).status).toBe(200);
    expect((await read(order.orderId, other)).body.orderId).toBe(order.orderId);
  });

  it('deletes an order with its lines and fulfillments; an order with returns stays', async () => {
    const order = apiOrder();
    await create(order);
    await fulfil(order.orderId, { lineItems: [{ id: 'a1', quantity: 1 }] });
    const deleted = await v22(app, acme, 'DELETE', `/stores/${acme.storeId}/orders/${order.orderId}`);
    expect(deleted.body).toMatchObject({ success: true, externalOrderId: order.orderId });
    expect((await read(order.orderId)).status).toBe(404);
    // The id is free again.
    expect((await create(order)).status).toBe(200);
    await returnOf(order.orderId, [{ lineItemId: 'a2', quantity: 1 }]);
    const kept = await v22(app, acme, 'DELETE', `/stores/${acme.storeId}/orders/${order.orderId}`);
    expect(kept.status).toBe(409);
    expect(kept.body.type).toBe('/problems/order-has-returns');
  });

  describe('the order webhook topic', () => {
    let receiver: Receiver;
    beforeAll(async () => {
      receiver = await startReceiver();
    });
    afterAll(() => receiver.close());

    it('delivers order.created, order.updated (a fulfillment, a tracking update) and order.deleted, in order, with the order as the orders API reads it', async () => {
      const hook = await createWebhook(app, acme, { callback: { url: receiver.url, auth: null }, topic: 'order' });
      expect(hook.status).toBe(201);
      const order = apiOrder();
      const { orderId } = (await create(order)).body;
      await fulfil(order.orderId, { fulfillmentId: 'W1', lineItems: [{ id: 'a1', quantity: 1 }], tracking: { carrier: 'UPS', code: '1ZW' } });
      await track(order.orderId, 'W1', { status: 'in_transit' });
      await v22(app, acme, 'DELETE', `/stores/${acme.storeId}/orders/${order.orderId}`);
      const bodies = await eventually(async () => {
        const mine = receiver.received.map((r) => JSON.parse(r.body) as { type: string; orderId: string; order: { fulfillments: { status: string }[] } }).filter((b) => b.orderId === orderId);
        return mine.length >= 4 ? mine : undefined;
      }, 'the order deliveries');
      expect(bodies.map((b) => b.type)).toEqual(['created', 'updated', 'updated', 'deleted']);
      expect(bodies.map((b) => b.order.fulfillments.map((f) => f.status))).toEqual([[], ['pre_transit'], ['in_transit'], ['in_transit']]);
    });
  });

  it('returnStats divides returned units by fulfilled ones with rateBasis FULFILLED', async () => {
    const account = await app.createAccount('Rates');
    const order = apiOrder({ createdAt: new Date().toISOString() });
    await create(order, account);
    // 3 units ordered, 2 fulfilled, 1 returned.
    await v22(app, account, 'POST', `/stores/${account.storeId}/orders/${order.orderId}/fulfillments`, { lineItems: [{ id: 'a1', quantity: 2 }] });
    expect((await postReturn(app, account, returnBody(order.orderId, [{ lineItemId: 'a1', quantity: 1, reason: 'r' }]))).status).toBe(201);
    const window = { from: new Date(Date.now() - 86_400_000).toISOString(), until: new Date(Date.now() + 86_400_000).toISOString(), interval: 'DAY', timeZone: 'UTC' };
    const rate = async (rateBasis: string) =>
      (await gql<{ returnStats: { totals: { returnRate: number } } }>(app, 'query($s: ID!, $w: TimeWindowInput!, $b: ReturnRateBasis) { returnStats(storeId: $s, window: $w, rateBasis: $b) { totals { returnRate } } }', { s: account.storeId, w: window, b: rateBasis }, account.apiSecret)).returnStats.totals.returnRate;
    expect(await rate('ORDERED')).toBeCloseTo(1 / 3);
    expect(await rate('FULFILLED')).toBeCloseTo(1 / 2);
  });
});
