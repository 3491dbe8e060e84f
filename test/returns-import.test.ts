import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, upsertProduct } from './inventory-fixtures.js';
import { useTestAccount, useTestApp } from './support/app.js';
import { compat } from './support/compat.js';
import { query } from './support/database.js';
import { eventually } from './support/eventually.js';
import { v22 } from './support/orders.js';
import { startReceiver, type Receiver } from './support/receiver.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';
import { createWebhook } from './support/webhooks.js';

/**
 * Return import (`POST /stores/{storeId}/returns/bulk`): a merchant moving from another returns
 * platform brings its history. Imported returns keep their status, dates and reference, raise no
 * events and restock nothing unless asked, and import once per reference.
 */
describe('return import', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Importer');
  let receiver: Receiver;
  let productId: string;

  const importReturns = (body: unknown) => v22(app, acme, 'POST', `/stores/${acme.storeId}/returns/bulk`, body);
  const product = (overrides: Record<string, unknown> = {}) => ({ productId, quantity: 1, reason: 'Too big', ...overrides });

  beforeAll(async () => {
    receiver = await startReceiver();
    productId = await upsertProduct(app, acme.storeId, { sku: 'IMP-1', title: 'Jacket', variantTitle: 'L' });
    await gql(app, 'mutation($s: ID!, $i: UpsertProductInput!) { upsertProduct(storeId: $s, input: $i) { id } }', { s: acme.storeId, i: { sku: 'IMP-1', title: 'Jacket', variantTitle: 'L', upc: '036000291452' } });
    // The returns subgraph knows the product once its product.upserted event reached it.
    await eventually(async () => (await query(app.databaseUrl, `select 1 from returns.product_fact where product_id = $1 and upc is not null`, [productId])).length > 0, 'the product fact');
  });
  afterAll(() => receiver.close());

  it('keeps each return as it was there: status, dates, reference, items, addresses and tags, marked as imported', async () => {
    const res = await importReturns({
      returns: [
        {
          products: [product({ condition: 'worn', quantity: 2 })],
          customer: { firstName: 'Grace', lastName: 'Hopper', email: 'grace@example.com' },
          externalReferenceId: 'LOOP-1001',
          externalProvider: 'loop',
          status: 'complete',
          type: 'warranty',
          createdAt: '2025-03-01T10:00:00Z',
          updatedAt: '2025-03-09T16:30:00Z',
          tags: ['Migrated'],
          currency: 'EUR',
          shippingAddress: { line1: '1 Navy Way', city: 'Arlington', state: 'VA', postalCode: '22202', country: 'US', phone: '+15550000001' },
          merchantAddress: { line1: '9 Dock Rd', city: 'Reno', state: 'NV', postalCode: '89501', country: 'US', name: 'Returns dock' },
        },
      ],
    });
    expect(res.status).toBe(200);
    const { returnId } = res.body.results[0];
    const read = (await v22(app, acme, 'GET', `/returns/${returnId}`)).body;
    expect(read.return).toMatchObject({
      status: 'complete',
      type: 'warranty',
      createdAt: '2025-03-01T10:00:00.000Z',
      updatedAt: '2025-03-09T16:30:00.000Z',
      externalOrderIds: [],
      externalReturnIds: [],
      tags: [{ name: 'Migrated', source: 'merchant' }],
      source: { emailAddress: 'grace@example.com', name: { given: 'Grace', surname: 'Hopper' }, phoneNumber: '+15550000001', mailingAddress: { line1: '1 Navy Way', city: 'Arlington' } },
      destination: { mailingAddress: { line1: '9 Dock Rd', city: 'Reno' } },
      items: [{ quantity: 2, reason: 'Too big', grade: 'worn', sku: 'IMP-1', upc: '036000291452', outcome: 'refund', refund: { amount: { amount: '0.00', currency: 'EUR' } } }],
    });
    const graph = await gql<{ return: { imported: boolean; importedAt: string; externalReferenceId: string; externalProvider: string; closedAt: string; order: { imported: boolean } } }>(
      app,
      'query($id: ID!) { return(id: $id) { imported importedAt externalReferenceId externalProvider closedAt order { imported } } }',
      { id: returnId },
    );
    expect(graph.return).toMatchObject({ imported: true, externalReferenceId: 'LOOP-1001', externalProvider: 'loop', closedAt: '2025-03-09T16:30:00.000Z', order: { imported: true } });
    const imported = await gql<{ returns: { edges: { node: { id: string } }[] } }>(app, 'query($s: ID!) { returns(storeId: $s, first: 50, filter: { imported: true }) { edges { node { id } } } }', { s: acme.storeId });
    expect(imported.returns.edges.map((e) => e.node.id)).toContain(returnId);
    // Listed by its own dates, as the history it is.
    const march = await v22(app, acme, 'GET', `/stores/${acme.storeId}/returns?created_at_min=2025-03-01&created_at_max=2025-03-02`);
    expect(march.body.returns.map((r: { id: string }) => r.id)).toEqual([returnId]);
    // Its order is no order of the store: not in the orders API, not units ordered.
    const orderId = (await gql<{ return: { order: { id: string } } }>(app, 'query($id: ID!) { return(id: $id) { order { id } } }', { id: returnId })).return.order.id;
    expect((await v22(app, acme, 'GET', `/stores/${acme.storeId}/orders/${orderId}`)).status).toBe(404);
    const stats = await gql<{ returnStats: { totals: { returns: number; items: number; returnRate: number | null } } }>(
      app,
      'query($s: ID!, $w: TimeWindowInput!) { returnStats(storeId: $s, window: $w) { totals { returns items returnRate } } }',
      { s: acme.storeId, w: { from: '2025-03-01T00:00:00Z', until: '2025-04-01T00:00:00Z', interval: 'MONTH', timeZone: 'UTC' } },
    );
    expect(stats.returnStats.totals).toEqual({ returns: 1, items: 2, returnRate: null });
  });

  it('raises no event for history (and never restocks it) unless asked', async () => {
    const hook = await createWebhook(app, acme, { callback: { url: receiver.url, auth: null }, topic: 'return' });
    expect(hook.status).toBe(201);
    const history = await importReturns({ returns: [{ products: [product()], externalReferenceId: 'H-1', status: 'complete' }] });
    const announced = await importReturns({ returns: [{ products: [product()], externalReferenceId: 'H-2', status: 'complete' }], options: { webhooks: true } });
    const historyId = history.body.results[0].returnId;
    const announcedId = announced.body.results[0].returnId;
    // A change of the complete imported return reaches restock (return.updated, complete): its items are never restocked.
    await gql(app, 'mutation($id: ID!) { setReturnTags(returnId: $id, tags: ["Seen"]) { id } }', { id: historyId }, acme.apiSecret);
    // Marker: a return made here and completed afterwards, whose delivery and restock come after.
    await upsertProduct(app, acme.storeId, { sku: 'MARK-1', title: 'Marker' });
    const order = orderBody({}, [{ id: 'm1', quantity: 1, price: '5.00', sku: 'MARK-1' }]);
    await pushOrder(app, acme, order);
    const marker = (await postReturn(app, acme, returnBody(order.id as string, [{ lineItemId: 'm1', quantity: 1, reason: 'r' }]))).body.return.id as string;
    expect((await v22(app, acme, 'PUT', `/returns/${marker}/status`, { status: 'complete' })).status).toBe(204);
    await eventually(async () => receiver.received.some((r) => (JSON.parse(r.body) as { type: string; return: { id: string; status: string } }).return.id === marker && JSON.parse(r.body).return.status === 'complete'), 'the marker delivered');
    await eventually(
      async () => (await query(app.databaseUrl, `select 1 from inventory.inventory_item where store_id = $1 and sku = 'MARK-1' and kind = 'RETURN' and quantity > 0`, [acme.storeId])).length > 0,
      'the marker restocked',
    );
    const created = receiver.received.map((r) => JSON.parse(r.body) as { type: string; return: { id: string } }).filter((b) => b.type === 'created').map((b) => b.return.id);
    expect(created).toContain(announcedId);
    expect(created).not.toContain(historyId);
    const restockedImports = await query(app.databaseUrl, `select 1 from inventory.inventory_item where store_id = $1 and sku = 'IMP-1' and kind = 'RETURN'`, [acme.storeId]);
    expect(restockedImports).toEqual([]);
  });

  it('imports a return once per reference (else idempotency key): again, twice in one batch, and from concurrent requests', async () => {
    const body = { returns: [{ products: [product()], externalReferenceId: 'ONCE-1' }, { products: [product()], externalReferenceId: 'ONCE-1' }, { products: [product()], idempotencyKey: 'K-1' }] };
    const first = await importReturns(body);
    const [a, b, c] = first.body.results;
    expect(a.returnId).toBe(b.returnId);
    const again = await importReturns(body);
    expect(again.body.results.map((r: { returnId: string }) => r.returnId)).toEqual([a.returnId, a.returnId, c.returnId]);
    const racing = await Promise.all(Array.from({ length: 6 }, () => importReturns({ returns: [{ products: [product()], externalReferenceId: 'RACE-1' }] })));
    expect(new Set(racing.map((r) => r.body.results[0].returnId)).size).toBe(1);
    const [count] = await query<{ n: number }>(app.databaseUrl, `select count(*)::int as n from returns.return where store_id = $1 and external_reference_id = 'RACE-1'`, [acme.storeId]);
    expect(count!.n).toBe(1);
  });

  it('answers each invalid return with its pointers and creates the valid ones; an unknown product needs its sku', async () => {
    const res = await importReturns({
      returns: [
        { products: [product({ quantity: 0 })], status: 'shipped' },
        { products: [product()], createdAt: '2025-05-02T00:00:00Z', updatedAt: '2025-05-01T00:00:00Z' },
        { products: [product()], status: 'open', closedAt: '2025-05-01T00:00:00Z' },
        { products: [{ productId: 'prd_from_elsewhere', quantity: 1 }] },
        { products: [{ productId: 'prd_from_elsewhere', quantity: 1, sku: 'OLD-9', productTitle: 'Old scarf', barcode: '0123' }] },
        { products: [product()], shippingAddress: { line1: 'x', city: 'y', country: 'USA' }, customer: { email: 'nope' } },
      ],
    });
    expect(res.body).toMatchObject({ totalCount: 6, processedCount: 1, errorCount: 5 });
    const errors = res.body.results.map((r: { error?: string }) => r.error);
    expect(errors[0]).toMatch(/\/products\/0\/quantity.*\/status|\/status.*\/products\/0\/quantity/);
    expect(errors[1]).toContain('/updatedAt');
    expect(errors[2]).toContain('/closedAt');
    expect(errors[3]).toContain('/products/0/productId');
    expect(errors[4]).toBeUndefined();
    expect(errors[5]).toMatch(/\/shippingAddress\/country/);
    expect(errors[5]).toMatch(/\/customer\/email/);
    const made = (await v22(app, acme, 'GET', `/returns/${res.body.results[4].returnId}`)).body.return;
    expect(made.items[0]).toMatchObject({ sku: 'OLD-9', upc: '0123' });
    // The warehouse's advance notice shows the barcode it will scan.
    const asn = await compat(app, acme.compatKey, 'GET', '/api/v1/warehouse/reporting/asn');
    expect(asn.body.find((row: { sku: string }) => row.sku === 'OLD-9')).toMatchObject({ barcode: '0123', title: 'Old scarf' });
    // The envelope: 1 to 100 returns.
    const tooMany = await importReturns({ returns: Array.from({ length: 101 }, () => ({ products: [product()] })) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.errors[0].pointer).toBe('/returns');
  });
});
