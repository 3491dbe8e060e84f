import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { query } from './support/database.js';
import { accept, drained } from './support/events.js';
import { eventually } from './support/eventually.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';
import { createLocation, createShipment, gql, upsertProduct, adjust } from './inventory-fixtures.js';

/** Every connection carries `totalCount` (decisions section 12), counted over its filters, whatever the page. */
describe('connections-total-count', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Counts');
  let orderId: string;

  beforeAll(async () => {
    for (const n of [1, 2, 3]) await accept(app, acme, { eventName: n < 3 ? 'Viewed' : 'Ordered', customer: { email: 'ada@example.com' }, data: { n } });
    await accept(app, acme, { eventName: 'Viewed', customer: { email: 'bob@example.com' } });
    await drained(app.databaseUrl);
    const order = orderBody({}, [{ id: 'l1', quantity: 3, price: '1.00', sku: 'CAP' }]);
    orderId = (await pushOrder(app, acme, order)).body.order.id;
    for (let i = 0; i < 2; i++) expect((await postReturn(app, acme, returnBody(order.id as string, [{ lineItemId: 'l1', quantity: 1, reason: 'r' }]))).status).toBe(201);
    const loc = await createLocation(app, acme.storeId, 'Main');
    const cap = await upsertProduct(app, acme.storeId, { sku: 'CAP', title: 'Cap' });
    await upsertProduct(app, acme.storeId, { sku: 'HAT', title: 'Hat' });
    await adjust(app, acme.storeId, { sku: 'CAP', locationId: loc, delta: 2 });
    await adjust(app, acme.storeId, { sku: 'HAT', locationId: loc, delta: 1 });
    await createShipment(app, acme.storeId, { locationId: loc, items: [{ productId: cap, quantity: 1 }] });
    // Ada ordered: each return's creation becomes an event of hers (flows on return outcomes), stored once processed.
    await eventually(async () => (await query<{ n: number }>(app.databaseUrl, "select count(*)::int as n from events.custom_event where event_name = 'return.statusChanged'"))[0]!.n === 2, 'the returns as her events');
    await drained(app.databaseUrl);
  });

  it('on a customer’s events (it was null), a store’s events, customers, returns of a store, an order and a customer, inventory items, shipments and segment members', async () => {
    const data = await gql<Record<string, any>>(
      app,
      `query($s: ID!, $o: ID!) {
        customer(storeId: $s, email: "ada@example.com") { events(first: 1) { totalCount edges { node { id } } } viewed: events(first: 1, eventName: "Viewed") { totalCount } returns(first: 1) { totalCount } }
        customEvents(storeId: $s, first: 1, eventName: "Viewed") { totalCount }
        customers(storeId: $s, first: 1) { totalCount }
        returns(storeId: $s, first: 1) { totalCount }
        order(id: $o) { returns(first: 1) { totalCount } }
        inventoryItems(storeId: $s, first: 1) { totalCount }
        inboundShipments(storeId: $s, first: 1) { totalCount }
        segmentMembers(storeId: $s, first: 1, definition: { all: [{ event: { eventName: "Viewed" } }] }) { totalCount }
      }`,
      { s: acme.storeId, o: orderId },
      acme.apiSecret,
    );
    expect(data.customer.events).toMatchObject({ totalCount: 5, edges: [expect.anything()] });
    expect(data.customer.viewed.totalCount).toBe(2);
    expect(data.customer.returns.totalCount).toBe(2);
    // Of one name (the store's events also hold the two returns' status changes).
    expect(data.customEvents.totalCount).toBe(3);
    expect(data.customers.totalCount).toBe(2);
    expect(data.returns.totalCount).toBe(2);
    expect(data.order.returns.totalCount).toBe(2);
    expect(data.inventoryItems.totalCount).toBe(2);
    expect(data.inboundShipments.totalCount).toBe(1);
    expect(data.segmentMembers.totalCount).toBe(2);
  });
});
