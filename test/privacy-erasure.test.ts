import { describe, expect, it } from 'vitest';
import { useTestApp } from './support/app.js';
import { query } from './support/database.js';
import { accept, drained, postEvent } from './support/events.js';
import { eventually } from './support/eventually.js';
import { ANN, countsOf, erasureCompleted, NEEDLES, requestErasure, scan, settled, useAnnsStore } from './support/privacy.js';
import { call } from './support/webhooks.js';

/**
 * A customer erased everywhere: her profile, events, claims, runs and messages go; her orders and
 * returns stay without her; copies in the outbox, queued jobs and webhook messages are scrubbed; and then
 * nothing in any column of any table of any schema holds her email or phone number.
 */
describe('customer erasure', () => {
  const app = useTestApp();
  const ann = useAnnsStore(app, 'Erasure');
  const shop = ann.shop;

  it('leaves no readable trace of the customer in any table, and tells subscribers once', { timeout: 120_000 }, async () => {
    const before = await scan(app.databaseUrl, NEEDLES);
    // The scan sees every place customer data lives (so its silence afterwards means something).
    for (const table of ['events.customer', 'events.custom_event', 'events.message', 'returns.order', 'returns.return', 'returns.return_comment', 'webhooks.message', 'platform.outbox_event']) {
      expect(before.some((h) => h.table === table), table).toBe(true);
    }

    const id = await requestErasure(app, shop, { email: ANN.email.toUpperCase() });
    const erasure = await erasureCompleted(app, shop, id);
    await settled(app.databaseUrl);

    expect(await scan(app.databaseUrl, NEEDLES)).toEqual([]);
    expect(erasure).toMatchObject({ storeId: shop.storeId, requestedBy: 'email', suppression: 'DROP', customerIds: [ann.seeded.annId] });
    const counts = countsOf(erasure);
    // Her events: two she sent, two of her return's status changes (each with its uniqueId).
    expect(counts).toMatchObject({ 'customer/REMOVED': 1, 'custom_event/REMOVED': 4, 'unique_id/REMOVED': 3, 'customer_return/REMOVED': 1, 'customer_order/REMOVED': 1, 'flow_run/REMOVED': 1, 'message/REMOVED': 2, 'order/ANONYMISED': 1, 'return/ANONYMISED': 1 });
    // Bob's event kept, without her email; her identifiers suppressed (id, email, phone).
    expect(counts['custom_event/ANONYMISED']).toBe(1);
    expect(counts['suppression/SUPPRESSED']).toBe(3);

    // The financial records stay, marked, without the person.
    const [order] = await query<{ customer_email: string | null; customer_first_name: string | null; shipping_address: unknown; erased_at: Date | null }>(
      app.databaseUrl,
      'select customer_email, customer_first_name, shipping_address, erased_at from returns."order" where id = $1',
      [ann.seeded.orderId],
    );
    expect(order).toMatchObject({ customer_email: null, customer_first_name: null, shipping_address: null });
    expect(order!.erased_at).toBeInstanceOf(Date);
    const read = await call(app, shop.apiSecret, 'GET', `/v2.2/returns/${ann.seeded.returnId}`);
    expect(read.status).toBe(200);
    expect(read.body.return.status).toBe('complete');
    expect(read.body.return.source).toMatchObject({ emailAddress: '', phoneNumber: '', name: { given: '', surname: '' } });
    const graph = await app.graphql<{ order: { erasedAt: string | null; customer: { emailAddress: string | null } } }>(`query($id: ID!) { order(id: $id) { erasedAt customer { emailAddress } } }`, { id: ann.seeded.orderId });
    expect(graph.data!.order.customer.emailAddress).toBeNull();
    expect(graph.data!.order.erasedAt).toEqual(expect.any(String));
    expect(await query(app.databaseUrl, 'select 1 from events.customer where id = $1', [ann.seeded.bobId])).toHaveLength(1);

    // One customer.erased delivery, with ids and counts and no identifier.
    const erased = await eventually(async () => ann.receiver.received.filter((r) => (JSON.parse(r.body) as { type: string }).type === 'erased'), 'the customer.erased webhook');
    expect(erased).toHaveLength(1);
    expect(JSON.parse(erased[0]!.body)).toMatchObject({ type: 'erased', erasure: { id, customerIds: [ann.seeded.annId], status: 'COMPLETED' } });

    // Erasing again is harmless: nothing left to remove, completed again.
    const again = await erasureCompleted(app, shop, await requestErasure(app, shop, { phoneNumber: ANN.phoneNumber }));
    expect(countsOf(again)['customer/REMOVED']).toBeUndefined();
  });

  it('drops later events with an erased identifier: nothing is re-created', { timeout: 60_000 }, async () => {
    await accept(app, shop, { eventName: 'Back again', customer: { email: ANN.email.toLowerCase(), firstName: 'Ann' } });
    await accept(app, shop, { eventName: 'Back again', customer: { phoneNumber: ANN.phoneNumber } });
    await accept(app, shop, { eventName: 'Back again', customer: { id: ann.seeded.annId } });
    // A marker after them: another customer's event, processed once they were.
    await accept(app, shop, { eventName: 'Marker', customer: { email: 'carol@example.com' } });
    await drained(app.databaseUrl);
    expect(await query(app.databaseUrl, `select 1 from events.custom_event where store_id = $1 and event_name = 'Back again'`, [shop.storeId])).toEqual([]);
    expect(await query(app.databaseUrl, `select email from events.customer where store_id = $1 order by email`, [shop.storeId])).toEqual([{ email: 'bob@example.com' }, { email: 'carol@example.com' }]);
    await settled(app.databaseUrl);
    expect(await scan(app.databaseUrl, NEEDLES)).toEqual([]);
  });

  it('refuses later events with the identifier when the merchant chose REFUSE', async () => {
    const dave = { email: 'dave@example.com' };
    await accept(app, shop, { eventName: 'Signed up', customer: dave });
    await drained(app.databaseUrl);
    await erasureCompleted(app, shop, await requestErasure(app, shop, { email: dave.email, suppression: 'REFUSE' }));

    const refused = await postEvent(app, shop, { eventName: 'Again', customer: { email: 'DAVE@example.com' } });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ type: '/problems/customer-erased', errors: [{ pointer: '/customer' }] });
    const bulk = await postEvent(app, shop, { events: [{ eventName: 'Again', customer: dave }, { eventName: 'Other', customer: { email: 'erin@example.com' } }] }, { path: '/bulk' });
    expect(bulk.status).toBe(202);
    const body = (await bulk.json()) as { accepted: number; rejected: number; results: { index: number; status: string; error?: { errors: { pointer: string }[] } }[] };
    expect(body).toMatchObject({ accepted: 1, rejected: 1 });
    expect(body.results[0]).toMatchObject({ status: 'rejected', error: { errors: [{ pointer: '/events/0/customer' }] } });
    const graph = await app.graphql<{ createCustomEvent: unknown }>(`mutation($s: ID!, $e: JSON!) { createCustomEvent(storeId: $s, event: $e) { queued } }`, { s: shop.storeId, e: { eventName: 'Again', customer: dave } }, shop.apiSecret);
    expect(graph.errors?.[0]?.extensions).toMatchObject({ problem: 'customer-erased' });
  });

  it('takes events that arrive during the erasure with it', { timeout: 120_000 }, async () => {
    const fay = { email: 'fay@example.com', phoneNumber: '+14155550199' };
    await accept(app, shop, { eventName: 'Step', customer: fay, data: { k: 1 } });
    await drained(app.databaseUrl);
    const [first] = await query<{ id: string }>(app.databaseUrl, `select e.id from events.custom_event e join events.customer c on c.id = e.customer_id where c.email = $1`, [fay.email]);
    // Hold her first event's row: the erasure stops at its first batch, before any lock of the store.
    const { default: pg } = await import('pg');
    const holder = new pg.Client({ connectionString: app.databaseUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from events.custom_event where id = $1 for update', [first!.id]);
      const id = await requestErasure(app, shop, { phoneNumber: fay.phoneNumber });
      await eventually(
        async () => (await query(app.databaseUrl, `select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like '%delete from custom_event%'`)).length > 0,
        'the erasure to wait for the held event',
      );
      // Events for her while it runs are processed as usual, then taken with the rest.
      for (let k = 2; k <= 6; k++) await accept(app, shop, { eventName: 'Step', customer: k % 2 ? { email: fay.email } : { phoneNumber: fay.phoneNumber }, data: { k } });
      await drained(app.databaseUrl);
      expect(await query(app.databaseUrl, `select 1 from events.custom_event where store_id = $1 and event_name = 'Step'`, [shop.storeId])).toHaveLength(6);
      await holder.query('commit');
      const erasure = await erasureCompleted(app, shop, id);
      expect(countsOf(erasure)['custom_event/REMOVED']).toBe(6);
    } finally {
      await holder.end();
    }
    // And the ones after it re-create nothing.
    for (let k = 7; k <= 8; k++) await accept(app, shop, { eventName: 'Step', customer: fay, data: { k } });
    await drained(app.databaseUrl);
    expect(await query(app.databaseUrl, `select 1 from events.customer where store_id = $1 and (email = $2 or phone_number = $3)`, [shop.storeId, fay.email, fay.phoneNumber])).toEqual([]);
    await settled(app.databaseUrl);
    expect(await scan(app.databaseUrl, [fay.email, fay.phoneNumber])).toEqual([]);
  });

  it('answers the status only within its store, and refuses bad requests', async () => {
    const other = await app.createAccount('Other');
    const id = await requestErasure(app, shop, { customerId: 'cus_unknown' });
    expect((await call(app, other.apiSecret, 'GET', `/v2.2/stores/${other.storeId}/customers/erasure/${id}`)).status).toBe(404);
    expect((await app.graphql<{ erasureRequest: unknown }>(`query($id: ID!) { erasureRequest(id: $id) { id } }`, { id }, other.apiSecret)).data).toEqual({ erasureRequest: null });
    const two = await call(app, shop.apiSecret, 'POST', `/v2.2/stores/${shop.storeId}/customers/erasure`, { email: 'a@example.com', phoneNumber: '+14155550100' });
    expect(two.status).toBe(400);
    const none = await call(app, shop.apiSecret, 'POST', `/v2.2/stores/${shop.storeId}/customers/erasure`, {});
    expect(none.status).toBe(400);
    const bad = await call(app, shop.apiSecret, 'POST', `/v2.2/stores/${shop.storeId}/customers/erasure`, { email: 'not an email' });
    expect(bad.body.errors).toEqual([{ pointer: '/email', detail: expect.any(String) }]);
    const gql = await app.graphql(`mutation($s: ID!) { eraseCustomer(storeId: $s, by: {}) { id } }`, { s: shop.storeId }, shop.apiSecret);
    expect(gql.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    const byGraph = await app.graphql<{ eraseCustomer: { id: string; status: string } }>(
      `mutation($s: ID!) { eraseCustomer(storeId: $s, by: {email: "nobody@example.com"}, suppression: REFUSE) { id status suppression } }`,
      { s: shop.storeId },
      shop.apiSecret,
    );
    expect(byGraph.data!.eraseCustomer).toMatchObject({ status: 'PENDING', suppression: 'REFUSE' });
    await erasureCompleted(app, shop, byGraph.data!.eraseCustomer.id);
  });
});
