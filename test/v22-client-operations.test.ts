import { describe, expect, it } from 'vitest';
import { adjust, createLocation, gql, rest, upsertProduct, walk } from './inventory-fixtures.js';
import { query } from './support/database.js';
import { eventually } from './support/eventually.js';
import { useTestAccount, useTestApp } from './support/app.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';

type Json = Record<string, any>;

/**
 * The operations and inputs added for the real platform's v2.2 clients
 * (issue 15), beyond their shapes (conformance-v22.test.ts): processing,
 * status reads, image comments, every return type, labels and inventory
 * levels, with their errors, scoping and races.
 */
describe('v2.2 client operations', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Acme');
  const other = useTestAccount(app, 'Other');

  const send = (method: string, path: string, body?: unknown, token = acme.apiSecret) =>
    app.request(`/v2.2${path}`, { method, token, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

  async function newReturn(lines = [{ lineItemId: 'li-1', quantity: 1, reason: 'Too small' }, { lineItemId: 'li-2', quantity: 1, reason: 'Faded' }], extra: Json = {}): Promise<Json> {
    const order = orderBody();
    await pushOrder(app, acme, order);
    const created = await postReturn(app, acme, returnBody(order.id as string, lines, extra));
    expect(created.status).toBe(201);
    return created.body.return;
  }

  const restocked = async (returnId: string) =>
    (await query<{ id: string }>(app.databaseUrl, 'select return_item_id as id from inventory.restock_ledger where return_id = $1 order by return_item_id', [returnId])).map((r) => r.id);

  const statusOf = async (id: string) => (await (await send('GET', `/returns/${id}/status`)).json()).status as string;

  it('process: queues the completion, rejected items get that outcome, the others their compensation', async () => {
    const ret = await newReturn();
    const res = await send('POST', `/returns/${ret.id}/process`, { products: [{ _id: ret.items[1].id, reject: true }], customerNotes: 'Second item worn' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: expect.any(String) });
    await eventually(async () => (await statusOf(ret.id)) === 'complete', 'the completion');
    const read = await (await send('GET', `/returns/${ret.id}`)).json();
    expect(read.return.items.map((i: Json) => i.outcome)).toEqual(['refund', 'rejected']);
    // Kept on the timeline like the compatibility API's process (the same completion).
    const timeline = await gql<{ return: { timeline: { kind: string; detail: Json | null }[] } }>(app, 'query($id: ID!) { return(id: $id) { timeline { kind detail } } }', { id: ret.id }, acme.apiSecret);
    expect(timeline.return.timeline.map((t) => t.kind)).toEqual(['completion_queued', 'completed']);
    expect(timeline.return.timeline[0]!.detail).toMatchObject({ customerNotes: 'Second item worn' });
  });

  it('process: restocks the items it is told to, not those with processInput.restock false or rejected', async () => {
    await upsertProduct(app, acme.storeId, { sku: 'SKU-1', title: 'Shirt' });
    await upsertProduct(app, acme.storeId, { sku: 'SKU-2', title: 'Hat' });
    const ret = await newReturn();
    const before = await restocked(ret.id);
    expect(before).toEqual([]);
    const res = await send('POST', `/returns/${ret.id}/process`, { products: [{ _id: ret.items[0].id, processInput: { restock: false } }, { _id: ret.items[1].id }] });
    expect(res.status).toBe(200);
    await eventually(async () => (await statusOf(ret.id)) === 'complete', 'the completion');
    // The ledger records each restocked item once; only the hat's line is in it.
    expect(await eventually(async () => {
      const rows = await restocked(ret.id);
      return rows.length ? rows : undefined;
    }, 'the restock')).toEqual([ret.items[1].id]);
  });

  it('process: two racing requests complete the return once', async () => {
    const ret = await newReturn();
    const answers = await Promise.all([0, 1].map(() => send('POST', `/returns/${ret.id}/process`, { products: [] })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200]);
    await eventually(async () => (await statusOf(ret.id)) === 'complete', 'the completion');
    const timeline = await gql<{ return: { timeline: { kind: string }[] } }>(app, 'query($id: ID!) { return(id: $id) { timeline { kind } } }', { id: ret.id }, acme.apiSecret);
    expect(timeline.return.timeline.filter((t) => t.kind === 'completed')).toHaveLength(1);
  });

  it('process: refuses a product that is not an item of the return (400, nothing queued), a closed return (409), another account (404) and a secret without returns_write (403)', async () => {
    const ret = await newReturn();
    const stranger = await send('POST', `/returns/${ret.id}/process`, { products: [{ _id: ret.items[0].id }, { _id: 'rti_nope' }] });
    expect(stranger.status).toBe(400);
    expect((await stranger.json()).errors).toEqual([{ pointer: '/products/1/_id', detail: 'is not an item of this return' }]);
    expect((await send('POST', `/returns/${ret.id}/process`, {})).status).toBe(400);
    expect(await statusOf(ret.id)).toBe('open');
    expect((await send('POST', `/returns/${ret.id}/process`, { products: [] }, other.apiSecret)).status).toBe(404);
    const readOnly = await app.service.runtime.accounts.createSecret(acme.accountId, ['returns_read']);
    expect((await send('POST', `/returns/${ret.id}/process`, { products: [] }, readOnly.apiSecret)).status).toBe(403);
    expect((await send('PUT', `/returns/${ret.id}/status`, { status: 'rejected' })).status).toBe(204);
    const closed = await send('POST', `/returns/${ret.id}/process`, { products: [] });
    expect(closed.status).toBe(409);
    expect((await closed.json()).type).toBe('/problems/invalid-transition');
  });

  it('status: reads the status; another account\'s return is 404', async () => {
    const ret = await newReturn();
    expect(await (await send('GET', `/returns/${ret.id}/status`)).json()).toEqual({ status: 'open' });
    expect((await send('GET', `/returns/${ret.id}/status`, undefined, other.apiSecret)).status).toBe(404);
    expect((await send('GET', '/returns/ret_missing/status')).status).toBe(404);
  });

  it('comments: takes an image (base64), refuses what is not base64 and a comment with both or neither', async () => {
    const ret = await newReturn();
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]).toString('base64');
    const posted = await send('POST', `/returns/${ret.id}/comments`, { comment: { image: png } });
    expect(posted.status).toBe(201);
    expect((await posted.json()).comment).toEqual({ id: expect.stringMatching(/^cmt_/), message: '', image: png, createdAt: expect.any(String) });
    for (const comment of [{ image: 'not base64!' }, { image: 'abc' }, { message: 'hi', image: png }, {}]) {
      const res = await send('POST', `/returns/${ret.id}/comments`, { comment });
      expect(res.status, JSON.stringify(comment)).toBe(400);
      const { errors } = await res.json();
      expect(errors[0].pointer).toMatch(/^\/comment/);
      expect(errors[0].detail).not.toContain('anyOf');
    }
    const list = await (await send('GET', `/returns/${ret.id}/comments`)).json();
    expect(list.comments).toHaveLength(1);
  });

  it('returns of every type of the real platform, filtered by type', async () => {
    for (const type of ['claim', 'recycle', 'withdrawal']) await newReturn([{ lineItemId: 'li-2', quantity: 1, reason: 'r' }], { type });
    for (const type of ['claim', 'recycle', 'withdrawal']) {
      const { body } = await rest<{ returns: Json[] }>(app, acme, `/returns?type=${type}`);
      expect(body.returns.map((r) => r.type)).toEqual([type]);
    }
    const bad = await rest<Json>(app, acme, '/returns?type=gift');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].pointer).toBe('query#type');
  });

  it('a label on create is the first shipment; tracking events update that shipment', async () => {
    const ret = await newReturn([{ lineItemId: 'li-1', quantity: 1, reason: 'r' }], { label: { trackingNumber: '9400100000000000000000', carrier: 'USPS', postageLabelUrl: 'https://labels.example/1.pdf' } });
    expect(ret.shipment).toEqual({ carrier: 'USPS', status: 'pre_transit', tracker: '9400100000000000000000', postageLabel: 'https://labels.example/1.pdf', itemIds: [ret.items[0].id] });
    await gql(app, 'mutation($id: ID!, $input: ShipmentEventInput!) { recordReturnShipmentEvent(returnId: $id, input: $input) { id } }', {
      id: ret.id,
      input: { status: 'in_transit', carrier: 'USPS', trackingNumber: '9400100000000000000000' },
    }, acme.apiSecret);
    const read = await (await send('GET', `/returns/${ret.id}`)).json();
    expect(read.return.status).toBe('in_transit');
    expect(read.return.shipments).toEqual([{ ...ret.shipment, status: 'in_transit' }]);
  });

  it('return items show the UPC of the store\'s product of their sku, kept from the inventory subgraph\'s product events', async () => {
    const ret = await newReturn([{ lineItemId: 'li-1', quantity: 1, reason: 'r' }]);
    expect(ret.items[0].upc).toBeNull();
    const upsert = (upc: string) =>
      gql(app, 'mutation($s: ID!, $i: UpsertProductInput!) { upsertProduct(storeId: $s, input: $i) { id } }', { s: acme.storeId, i: { sku: ret.items[0].sku, title: 'Shirt', upc } }, acme.apiSecret);
    await upsert('000000000001');
    await upsert('036000291452');
    const upcOf = async () => (await (await send('GET', `/returns/${ret.id}`)).json()).return.items[0].upc as string | null;
    // The newest product fact wins, whatever order the two events are worked in.
    await eventually(async () => (await upcOf()) === '036000291452', 'the UPC on the return item');
    // Another store's product of the same sku shows on that store's returns only.
    const order = orderBody();
    await pushOrder(app, other, order);
    const theirs = (await postReturn(app, other, returnBody(order.id as string, [{ lineItemId: 'li-1', quantity: 1, reason: 'r' }]))).body.return;
    await gql(app, 'mutation($s: ID!, $i: UpsertProductInput!) { upsertProduct(storeId: $s, input: $i) { id } }', { s: other.storeId, i: { sku: ret.items[0].sku, title: 'Other', upc: '999999999993' } }, other.apiSecret);
    const theirUpc = async () => (await (await send('GET', `/returns/${theirs.id}`, undefined, other.apiSecret)).json()).return.items[0].upc as string | null;
    await eventually(async () => (await theirUpc()) === '999999999993', "the other store's UPC");
    expect(await upcOf()).toBe('036000291452');
  });

  it('inventory levels: one per product and location across kinds and lots, kept with every change, paged, filtered and scoped', async () => {
    const north = await createLocation(app, acme.storeId, 'North');
    const south = await createLocation(app, acme.storeId, 'South');
    const products = await Promise.all(['LV-A', 'LV-B', 'LV-C'].map((sku) => upsertProduct(app, acme.storeId, { sku, title: `Product ${sku}` })));
    await adjust(app, acme.storeId, { productId: products[0]!, locationId: north, delta: 5 });
    await adjust(app, acme.storeId, { productId: products[0]!, locationId: north, delta: 3, lotNumber: 'L1' });
    await adjust(app, acme.storeId, { productId: products[0]!, locationId: north, delta: 2, kind: 'RETURN' });
    await adjust(app, acme.storeId, { productId: products[0]!, locationId: south, delta: 1 });
    await adjust(app, acme.storeId, { productId: products[1]!, locationId: north, delta: 4 });
    await adjust(app, acme.storeId, { productId: products[2]!, locationId: south, delta: 7 });
    await adjust(app, acme.storeId, { productId: products[2]!, locationId: south, delta: -7 });

    const walked = await walk<Json>(app, acme, '/inventory-levels', 'inventory_levels', 2);
    expect(walked.pages).toBeGreaterThanOrEqual(2);
    // Other tests' restocks may hold levels of their own in this store: these products' levels, in list order.
    const rows = walked.rows.filter((r) => products.includes(r.product.id));
    expect(new Set(walked.rows.map((r) => r.id)).size).toBe(walked.rows.length);
    const bySku = (sku: string, location: string) => rows.find((r) => r.product.sku === sku && r.location.id === location);
    expect(rows).toHaveLength(4);
    expect(bySku('LV-A', north)).toMatchObject({ quantity: 10, available: 10 });
    expect(bySku('LV-A', south)).toMatchObject({ quantity: 1 });
    // At zero it stays a level (the product is still stocked there, at zero).
    expect(bySku('LV-C', south)).toMatchObject({ quantity: 0, available: 0 });
    // Newest first.
    expect(rows[0]!.product.sku).toBe('LV-C');

    expect((await rest<{ inventory_levels: Json[] }>(app, acme, `/inventory-levels?location_id=${north}`)).body.inventory_levels.map((l) => l.product.sku).sort()).toEqual(['LV-A', 'LV-B']);
    expect((await rest<{ inventory_levels: Json[] }>(app, acme, '/inventory-levels?sku=LV-A')).body.inventory_levels).toHaveLength(2);
    expect((await rest<{ inventory_levels: Json[] }>(app, acme, `/inventory-levels?product_id=${products[1]}`)).body.inventory_levels).toHaveLength(1);
    expect((await rest<{ inventory_levels: Json[] }>(app, acme, '/inventory-levels?sku=NOPE')).body.inventory_levels).toEqual([]);
    expect((await rest<{ inventory_levels: Json[] }>(app, acme, '/inventory-levels?updated_at_min=2999-01-01')).body.inventory_levels).toEqual([]);
    expect((await rest<Json>(app, acme, '/inventory-levels?updated_at_min=soon')).status).toBe(400);
    // Levels take no kind: the parameter is ignored and named (decisions 17).
    const kind = await rest<{ inventory_levels: Json[] }>(app, acme, '/inventory-levels?kind=PRODUCT');
    expect(kind.ignored).toBe('kind');
    expect(kind.body.inventory_levels).toEqual((await rest<{ inventory_levels: Json[] }>(app, acme, '/inventory-levels')).body.inventory_levels);

    const level = bySku('LV-A', north)!;
    const one = await rest<{ inventory_level: Json }>(app, acme, `/inventory-levels/${level.id}`);
    expect(one.body.inventory_level).toMatchObject({ id: level.id, quantity: 10, external_ids: null, product: { upc: null, image_url: null }, created_at: expect.any(String) });
    expect((await app.request(`/v2.2/stores/${other.storeId}/inventory-levels/${level.id}`, { token: other.apiSecret })).status).toBe(404);
    expect((await app.request(`/v2.2/stores/${acme.storeId}/inventory-levels/${level.id}`, { token: other.apiSecret })).status).toBe(404);
    const limited = await app.service.runtime.accounts.createSecret(acme.accountId, ['inbound_shipments_read']);
    expect((await app.request(`/v2.2/stores/${acme.storeId}/inventory-levels`, { token: limited.apiSecret })).status).toBe(403);
  });

  it('inventory levels: concurrent changes of one product at one location lose no unit', async () => {
    const spot = await createLocation(app, acme.storeId, 'Race');
    const product = await upsertProduct(app, acme.storeId, { sku: 'RACE-1', title: 'Racer' });
    await Promise.all(Array.from({ length: 20 }, (_, i) => adjust(app, acme.storeId, { productId: product, locationId: spot, delta: 1, ...(i % 2 ? { lotNumber: `LOT-${i % 4}` } : {}) })));
    const { body } = await rest<{ inventory_levels: Json[] }>(app, acme, `/inventory-levels?location_id=${spot}`);
    expect(body.inventory_levels).toEqual([expect.objectContaining({ quantity: 20 })]);
  });
});
