import { afterAll, describe, expect, it } from 'vitest';
import type { OutboxEvent } from '../platform/jobs/outbox.js';
import { PUBLISHED_EVENTS } from '../subgraphs/index.js';
import { WEBHOOK_TOPICS } from '../webhooks/webhook.schemas.js';
import { adjust, createLocation, createShipment, gql, IN_TRANSIT, receive, upsertProduct } from './inventory-fixtures.js';
import { useTestAccount, useTestApp } from './support/app.js';
import { deliveryViolations, eventViolations, WEBHOOK_DELIVERIES } from './support/contract.js';
import { OUTBOX_EVENTS, query } from './support/database.js';
import { drained, postEvent } from './support/events.js';
import { erasureCompleted, requestErasure } from './support/privacy.js';
import { eventually } from './support/eventually.js';
import { startReceiver, type Receiver } from './support/receiver.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';
import { call, commentOn, createWebhook } from './support/webhooks.js';

/**
 * Every kind of event the service publishes, produced through its real paths, against the
 * contracts that declare them: each stored outbox event against its contract's schema, each
 * webhook request against the OpenAPI document's `webhooks` entry (generated from the same
 * schemas). A contract or a documented delivery that no change here produces fails the test,
 * so a new one comes with its check.
 */
describe('published event contracts', () => {
  const app = useTestApp();
  const account = useTestAccount(app, 'Contracts');
  const subscriptions: { topic: string; receiver: Receiver }[] = [];
  afterAll(async () => {
    for (const s of subscriptions) await s.receiver.close();
  });

  async function subscribe(topic: string, backfill = false): Promise<void> {
    const receiver = await startReceiver();
    subscriptions.push({ topic, receiver });
    expect((await createWebhook(app, account, { callback: { url: receiver.url, auth: { bearer: { token: 'contract-token-0001' } } }, topic, backfill })).status).toBe(201);
  }

  /** One change of each kind, nulls and optional parts both ways where a payload has them. */
  async function changeEverything(): Promise<void> {
    const order = orderBody({ id: 'O-C' }, [{ id: 'a', quantity: 5, price: '4.00', sku: 'SKU-C', title: 'Mug' }]);
    expect((await pushOrder(app, account, order)).status).toBe(200);
    const created = await postReturn(app, account, returnBody('O-C', [{ lineItemId: 'a', quantity: 2, reason: 'r' }]));
    expect(created.status).toBe(201);
    const returnId = created.body.return.id as string;
    expect((await commentOn(app, account, returnId, 'checked')).status).toBe(201);
    // Completion restocks, so inventory events follow from the return's.
    expect((await call(app, account.apiSecret, 'PUT', `/v2.2/returns/${returnId}/status`, { status: 'complete' })).status).toBe(204);

    // Orders: the orders API's order, fulfilled and tracked (order.updated), then deleted; a custom order fulfilled.
    const apiOrder = { orderId: 'API-C', createdAt: '2026-11-01T00:00:00Z', lineItems: [{ id: 'x', productId: 'P-C', title: 'Cap', quantity: 2, price: 3.5, imageUrl: null }], totalTax: 1, tags: ['c'] };
    expect((await call(app, account.apiSecret, 'POST', `/v2.2/stores/${account.storeId}/orders`, apiOrder)).status).toBe(200);
    const fulfillment = { fulfillmentId: 'F-C', lineItems: [{ id: 'x', quantity: 1 }], useDummyTracking: true, initialTracking: { status: 'in_transit', location: { city: 'Lyon', state: null, country: 'FR', postalCode: null } } };
    expect((await call(app, account.apiSecret, 'POST', `/v2.2/stores/${account.storeId}/orders/API-C/fulfillments`, fulfillment)).status).toBe(200);
    expect((await call(app, account.apiSecret, 'POST', `/v2.2/stores/${account.storeId}/orders/API-C/fulfillments/F-C/shipment-status`, { status: 'delivered' })).status).toBe(200);
    expect((await call(app, account.apiSecret, 'DELETE', `/v2.2/stores/${account.storeId}/orders/API-C`)).status).toBe(200);
    expect((await call(app, account.apiSecret, 'POST', `/v2.2/stores/${account.storeId}/orders/O-C/fulfillments`, { lineItems: [{ id: 'a', quantity: 5 }], tracking: { carrier: 'UPS', code: '1ZC' } })).status).toBe(200);

    const locationId = await createLocation(app, account.storeId, 'Main');
    const productId = await upsertProduct(app, account.storeId, { sku: 'SKU-C', title: 'Mug', variantTitle: 'Blue' });
    await adjust(app, account.storeId, { productId, locationId, delta: 5, lotNumber: 'L-1', expirationDate: '2030-01-31' });
    await adjust(app, account.storeId, { productId, locationId, delta: -1, lotNumber: 'L-1' });
    const shipment = await createShipment(app, account.storeId, {
      locationId,
      carrier: 'UPS',
      freightCost: { amount: '12.50', currency: 'EUR' },
      items: [{ productId, quantity: 3 }],
    });
    await gql(app, IN_TRANSIT, { id: shipment.id });
    await receive(app, shipment.id, [{ itemId: shipment.items[0]!.id, receivedQuantity: 2 }]);

    const full = { email: 'ada@example.com', firstName: 'Ada', location: { city: 'Paris', countryCode: 'FR' }, customFields: { tier: 'gold' } };
    const events = [
      { eventName: 'Viewed', customer: full, data: { page: 'home', $extra: { raw: [1, 2] } }, value: 9.5, valueCurrency: 'USD', uniqueId: 'u-1' },
      { eventName: 'Opened', customer: { phoneNumber: '+14155550100' } },
    ];
    for (const event of events) expect((await postEvent(app, account, event)).status).toBe(202);

    // A receiver that answers 410 gets its subscription disabled: the operational subscription hears of it (webhook.disabled).
    const gone = await startReceiver();
    gone.answer(() => ({ status: 410 }));
    subscriptions.push({ topic: 'inbound_shipment', receiver: gone });
    expect((await createWebhook(app, account, { callback: { url: gone.url, auth: null }, topic: 'inbound_shipment' })).status).toBe(201);
    await gql(app, IN_TRANSIT, { id: (await createShipment(app, account.storeId, { locationId, items: [{ productId, quantity: 1 }] })).id });

    // An erasure of a customer of its own (the others' events stay for the checks below).
    expect((await postEvent(app, account, { eventName: 'Left', customer: { email: 'zed@example.com' } })).status).toBe(202);
    await drained(app.databaseUrl);
    await erasureCompleted(app, account, await requestErasure(app, account, { email: 'zed@example.com' }));
  }

  it('every stored event matches its contract and every delivery its documented webhook', async () => {
    for (const topic of WEBHOOK_TOPICS) await subscribe(topic);
    await changeEverything();
    // Backfills read the subjects that now exist.
    for (const topic of WEBHOOK_TOPICS.filter((t) => WEBHOOK_DELIVERIES.includes(`${t}.backfill`))) await subscribe(topic, true);

    const deliveries = await eventually(async () => {
      const all = subscriptions.flatMap((s) => s.receiver.received.map((r) => ({ topic: s.topic, request: r, type: (JSON.parse(r.body) as { type: string }).type })));
      const names = new Set(all.map((d) => (d.type.includes('.') ? d.type : `${d.topic}.${d.type}`)));
      return WEBHOOK_DELIVERIES.every((name) => names.has(name)) ? all : undefined;
    }, `a delivery of each of ${WEBHOOK_DELIVERIES.join(', ')}`);
    for (const { topic, request } of deliveries) expect(deliveryViolations(topic, request.headers, request.body), request.body.slice(0, 300)).toEqual([]);

    const rows = await query<{ data: OutboxEvent }>(app.databaseUrl, `select data from ${OUTBOX_EVENTS} where data->>'storeId' = $1`, [account.storeId]);
    for (const { data } of rows) expect(eventViolations(data), JSON.stringify(data).slice(0, 300)).toEqual([]);
    expect(new Set(rows.map((r) => r.data.type))).toEqual(new Set(PUBLISHED_EVENTS.map((c) => c.type)));
    // Tracing is off here: no event carries a trace context, no delivery a traceparent.
    expect(rows.filter(({ data }) => 'trace' in data)).toEqual([]);
    expect(deliveries.filter(({ request }) => request.headers.traceparent !== undefined)).toEqual([]);
  });
});
