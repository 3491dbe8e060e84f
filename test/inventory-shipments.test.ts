import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { OUTBOX_EVENTS, query } from './support/database.js';
import {
  CREATE_SHIPMENT,
  IN_TRANSIT,
  RECEIVE,
  createLocation,
  createShipment,
  gql,
  gqlError,
  receive,
  rest,
  upsertProduct,
  walk,
} from './inventory-fixtures.js';

const SHIPMENT_KEYS = [
  'id',
  'shipment_id',
  'status',
  'location',
  'carrier',
  'tracking_number',
  'tracking_url',
  'estimated_arrival_date',
  'actual_arrival_date',
  'freight_type',
  'payment_terms',
  'freight_cost',
  'duty_cost',
  'items',
  'sku_count',
  'item_count',
  'received_count',
  'created_at',
  'updated_at',
].sort();

/** The detail read (GET one shipment) adds the real platform's detail fields. */
const DETAIL_KEYS = [...SHIPMENT_KEYS, 'custom_volume_cubic_meters', 'purchase_orders', 'transfer_orders', 'files', 'damaged_count', 'missing_count'].sort();

describe('inbound shipments', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Acme');
  let warehouse: string;
  let annex: string;
  let shirt: string;
  let mug: string;

  beforeAll(async () => {
    warehouse = await createLocation(app, acme.storeId, 'Main warehouse');
    annex = await createLocation(app, acme.storeId, 'Annex');
    shirt = await upsertProduct(app, acme.storeId, { sku: 'SHIRT-M', title: 'Shirt', variantTitle: 'M', imageUrl: 'https://img.example/shirt.png' });
    mug = await upsertProduct(app, acme.storeId, { sku: 'MUG', title: 'Mug' });
  });

  const fullInput = () => ({
    locationId: warehouse,
    shipmentId: 'PO-1001',
    carrier: 'UPS',
    trackingNumber: '1Z999',
    trackingUrl: 'https://track.example/1Z999',
    estimatedArrivalDate: '2026-12-01',
    freightType: 'LTL',
    paymentTerms: 'NET30',
    freightCost: { amount: '120.50', currency: 'USD' },
    dutyCost: { amount: '0.10', currency: 'USD' },
    items: [
      { productId: shirt, quantity: 10 },
      { productId: mug, quantity: 5 },
    ],
  });

  it('creates a PENDING shipment with derived counts and reads it back through REST in the spec shape', async () => {
    const created = await createShipment(app, acme.storeId, fullInput());
    expect(created).toMatchObject({ status: 'PENDING', skuCount: 2, itemCount: 15, receivedCount: 0, actualArrivalDate: null });
    const { status, body } = await rest<{ inbound_shipment: Record<string, unknown> }>(app, acme, `/inbound-shipments/${created.id}`);
    expect(status).toBe(200);
    const s = body.inbound_shipment;
    expect(Object.keys(s).sort()).toEqual(DETAIL_KEYS);
    expect(s).toMatchObject({ custom_volume_cubic_meters: null, purchase_orders: [], transfer_orders: [], files: [], damaged_count: 0, missing_count: 0 });
    expect(s).toMatchObject({
      id: created.id,
      shipment_id: 'PO-1001',
      status: 'PENDING',
      location: { id: warehouse, name: 'Main warehouse' },
      carrier: 'UPS',
      tracking_number: '1Z999',
      tracking_url: 'https://track.example/1Z999',
      estimated_arrival_date: '2026-12-01',
      actual_arrival_date: null,
      freight_type: 'LTL',
      payment_terms: 'NET30',
      freight_cost: { amount: '120.50', currency: 'USD' },
      duty_cost: { amount: '0.10', currency: 'USD' },
      sku_count: 2,
      item_count: 15,
      received_count: 0,
    });
    expect(Object.keys(s.location as object).sort()).toEqual(['id', 'name']);
    const items = s.items as Record<string, unknown>[];
    expect(items).toHaveLength(2);
    expect(Object.keys(items[0]!).sort()).toEqual(['damaged_quantity', 'discrepancy', 'id', 'missing_quantity', 'product', 'quantity', 'received_quantity'].sort());
    expect(items[0]).toMatchObject({
      product: { id: shirt, title: 'Shirt', sku: 'SHIRT-M', image_url: 'https://img.example/shirt.png' },
      quantity: 10,
      received_quantity: 0,
      damaged_quantity: 0,
      missing_quantity: 0,
      discrepancy: 10,
    });
    expect(Object.keys(items[0]!.product as object).sort()).toEqual(['id', 'image_url', 'sku', 'title', 'upc']);
    expect(s.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    // Money is kept as decimal text end to end.
    const [stored] = await query<{ amount: string }>(app.databaseUrl, 'select freight_cost_amount::text as amount from inventory.inbound_shipment where id = $1', [created.id]);
    expect(stored!.amount).toBe('120.50');
  });

  it('refuses invalid shipments, listing every violation', async () => {
    const input = { ...fullInput(), freightCost: { amount: '12.3456789', currency: 'usd' }, items: [{ productId: shirt, quantity: 0 }, { productId: shirt, quantity: 1 }] };
    const error = await gqlError(app, CREATE_SHIPMENT, { storeId: acme.storeId, input });
    expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', problem: 'validation-failed', status: 400 });
    expect((error.extensions!.errors as { pointer: string }[]).map((e) => e.pointer).sort()).toEqual(
      ['/input/freightCost/amount', '/input/freightCost/currency', '/input/items/0/quantity', '/input/items/1/productId'].sort(),
    );
    const empty = await gqlError(app, CREATE_SHIPMENT, { storeId: acme.storeId, input: { locationId: warehouse, items: [] } });
    expect(empty.extensions).toMatchObject({ problem: 'validation-failed' });
  });

  it('answers 404 for an unknown location or product, and a bad date is refused', async () => {
    const noLocation = await gqlError(app, CREATE_SHIPMENT, { storeId: acme.storeId, input: { ...fullInput(), locationId: 'loc_missing' } });
    expect(noLocation.extensions).toMatchObject({ problem: 'location-not-found', status: 404 });
    const noProduct = await gqlError(app, CREATE_SHIPMENT, { storeId: acme.storeId, input: { ...fullInput(), items: [{ productId: 'prd_missing', quantity: 1 }] } });
    expect(noProduct.extensions).toMatchObject({ problem: 'product-not-found', status: 404, errors: [{ pointer: '/input/items/0/productId' }] });
    const badDate = await app.graphql(CREATE_SHIPMENT, { storeId: acme.storeId, input: { ...fullInput(), estimatedArrivalDate: '2026-13-01' } });
    expect(badDate.errors?.length).toBeGreaterThan(0);
    // A location of another store is unknown here.
    const other = await app.createAccount('Other');
    const foreign = await createLocation(app, other.storeId, 'Elsewhere');
    const cross = await gqlError(app, CREATE_SHIPMENT, { storeId: acme.storeId, input: { ...fullInput(), locationId: foreign } });
    expect(cross.extensions).toMatchObject({ problem: 'location-not-found' });
  });

  it('runs the lifecycle PENDING -> IN_TRANSIT -> PARTIALLY_RECEIVED -> RECEIVED, stocking only good units', async () => {
    const s = await createShipment(app, acme.storeId, { locationId: annex, items: [{ productId: shirt, quantity: 10 }, { productId: mug, quantity: 4 }] });
    const [shirtLine, mugLine] = s.items;
    const inTransit = (await gql<{ markInboundShipmentInTransit: { status: string } }>(app, IN_TRANSIT, { id: s.id })).markInboundShipmentInTransit;
    expect(inTransit.status).toBe('IN_TRANSIT');

    const first = await receive(app, s.id, [{ itemId: shirtLine!.id, receivedQuantity: 6, damagedQuantity: 1 }]);
    expect(first).toMatchObject({ status: 'PARTIALLY_RECEIVED', skuCount: 2, itemCount: 14, receivedCount: 6 });
    expect(first.actualArrivalDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(first.items[0]).toMatchObject({ receivedQuantity: 6, damagedQuantity: 1, missingQuantity: 0 });

    const second = await receive(app, s.id, [
      { itemId: shirtLine!.id, receivedQuantity: 2, missingQuantity: 1 },
      { itemId: mugLine!.id, receivedQuantity: 4 },
    ]);
    expect(second).toMatchObject({ status: 'RECEIVED', receivedCount: 12, actualArrivalDate: first.actualArrivalDate });
    expect(second.items[0]).toMatchObject({ receivedQuantity: 8, damagedQuantity: 1, missingQuantity: 1 });

    // Good units only, as kind PRODUCT at the shipment's location.
    const stock = await query<{ sku: string; kind: string; quantity: number }>(
      app.databaseUrl,
      `select i.sku, i.kind, l.quantity from inventory.inventory_level l join inventory.inventory_item i on i.id = l.item_id
        where l.location_id = $1 order by i.sku`,
      [annex],
    );
    expect(stock).toEqual([
      { sku: 'MUG', kind: 'PRODUCT', quantity: 4 },
      { sku: 'SHIRT-M', kind: 'PRODUCT', quantity: 8 },
    ]);
    const items = await rest<{ inventory_items: { sku: string; name: string; quantity: number }[] }>(app, acme, `/inventory-items?location_id=${annex}`);
    expect(items.body.inventory_items.map((i) => [i.sku, i.name, i.quantity]).sort()).toEqual([
      ['MUG', 'Mug', 4],
      ['SHIRT-M', 'Shirt - M', 8],
    ]);

    // RECEIVED is final.
    const again = await gqlError(app, RECEIVE, { id: s.id, items: [{ itemId: mugLine!.id, receivedQuantity: 1 }] });
    expect(again.extensions).toMatchObject({ problem: 'invalid-transition', status: 409, code: 'CONFLICT' });
    const back = await gqlError(app, IN_TRANSIT, { id: s.id });
    expect(back.extensions).toMatchObject({ problem: 'invalid-transition' });
  });

  it('goes straight to RECEIVED when everything is received from PENDING, and refuses IN_TRANSIT twice', async () => {
    const s = await createShipment(app, acme.storeId, { locationId: warehouse, items: [{ productId: mug, quantity: 3 }] });
    const done = await receive(app, s.id, [{ itemId: s.items[0]!.id, receivedQuantity: 3 }]);
    expect(done.status).toBe('RECEIVED');

    const t = await createShipment(app, acme.storeId, { locationId: warehouse, items: [{ productId: mug, quantity: 3 }] });
    await gql(app, IN_TRANSIT, { id: t.id });
    expect((await gqlError(app, IN_TRANSIT, { id: t.id })).extensions).toMatchObject({ problem: 'invalid-transition' });
    const partial = await receive(app, t.id, [{ itemId: t.items[0]!.id, damagedQuantity: 1 }]);
    expect(partial).toMatchObject({ status: 'PARTIALLY_RECEIVED', receivedCount: 0 });
    expect((await gqlError(app, IN_TRANSIT, { id: t.id })).extensions).toMatchObject({ problem: 'invalid-transition' });
  });

  it('refuses receiving more than expected (400), unknown lines and empty receipts, without changing anything', async () => {
    const s = await createShipment(app, acme.storeId, { locationId: warehouse, items: [{ productId: shirt, quantity: 5 }] });
    const line = s.items[0]!.id;
    await receive(app, s.id, [{ itemId: line, receivedQuantity: 3 }]);
    const over = await gqlError(app, RECEIVE, { id: s.id, items: [{ itemId: line, receivedQuantity: 2, damagedQuantity: 1 }] });
    expect(over.extensions).toMatchObject({ problem: 'quantity-exceeds-expected', status: 400, errors: [{ pointer: '/items/0' }] });
    const unknown = await gqlError(app, RECEIVE, { id: s.id, items: [{ itemId: 'ini_nope', receivedQuantity: 1 }] });
    expect(unknown.extensions).toMatchObject({ problem: 'validation-failed', errors: [{ pointer: '/items/0/itemId' }] });
    const nothing = await gqlError(app, RECEIVE, { id: s.id, items: [{ itemId: line, receivedQuantity: 0 }] });
    expect(nothing.extensions).toMatchObject({ problem: 'validation-failed' });
    const negative = await gqlError(app, RECEIVE, { id: s.id, items: [{ itemId: line, receivedQuantity: -1 }] });
    expect(negative.extensions).toMatchObject({ problem: 'validation-failed', errors: expect.arrayContaining([{ pointer: '/items/0/receivedQuantity', detail: expect.any(String) }]) });
    const missing = await gqlError(app, RECEIVE, { id: 'inb_missing', items: [{ itemId: line, receivedQuantity: 1 }] });
    expect(missing.extensions).toMatchObject({ problem: 'inbound-shipment-not-found', status: 404 });
    const [row] = await query<{ received: number }>(app.databaseUrl, 'select received_quantity as received from inventory.inbound_shipment_item where id = $1', [line]);
    expect(row!.received).toBe(3);
  });

  it('publishes inbound_shipment.created/updated and inventory_item events in the REST shape', async () => {
    const s = await createShipment(app, acme.storeId, { locationId: warehouse, items: [{ productId: shirt, quantity: 2 }] });
    await gql(app, IN_TRANSIT, { id: s.id });
    await receive(app, s.id, [{ itemId: s.items[0]!.id, receivedQuantity: 2 }]);
    const events = await query<{ data: { type: string; subjectId: string; data: { inbound_shipment: { status: string; received_count: number } } } }>(
      app.databaseUrl,
      `select data from ${OUTBOX_EVENTS} where data->>'subjectId' = $1 order by sequence`,
      [s.id],
    );
    expect(events.map((e) => [e.data.type, e.data.data.inbound_shipment.status])).toEqual([
      ['inbound_shipment.created', 'PENDING'],
      ['inbound_shipment.updated', 'IN_TRANSIT'],
      ['inbound_shipment.updated', 'RECEIVED'],
    ]);
    expect(Object.keys(events[2]!.data.data.inbound_shipment).sort()).toEqual(SHIPMENT_KEYS);
    const itemEvents = await query<{ type: string }>(
      app.databaseUrl,
      `select data->>'type' as type from ${OUTBOX_EVENTS} where data->>'subjectType' = 'inventory_item' and data->'data'->'inventory_item'->>'sku' = 'SHIRT-M'`,
    );
    expect(itemEvents.length).toBeGreaterThan(0);
  });

  describe('GET /inbound-shipments', () => {
    const store = useTestAccount(app, 'Lister');
    let a: string;
    let b: string;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      a = await createLocation(app, store.storeId, 'A');
      b = await createLocation(app, store.storeId, 'B');
      const p = await upsertProduct(app, store.storeId, { sku: 'P', title: 'P' });
      // Created at known times (set afterwards) so the created_at filters can be checked exactly.
      const make = async (name: string, location: string, status: 'PENDING' | 'IN_TRANSIT' | 'PARTIALLY_RECEIVED' | 'RECEIVED', createdAt: string) => {
        const s = await createShipment(app, store.storeId, { locationId: location, items: [{ productId: p, quantity: 2 }] });
        if (status !== 'PENDING') await gql(app, IN_TRANSIT, { id: s.id });
        if (status === 'PARTIALLY_RECEIVED') await receive(app, s.id, [{ itemId: s.items[0]!.id, receivedQuantity: 1 }]);
        if (status === 'RECEIVED') await receive(app, s.id, [{ itemId: s.items[0]!.id, receivedQuantity: 2 }]);
        await query(app.databaseUrl, 'update inventory.inbound_shipment set created_at = $2 where id = $1', [s.id, createdAt]);
        ids[name] = s.id;
      };
      await make('a1', a, 'PENDING', '2026-01-01T00:00:00Z');
      await make('a2', a, 'IN_TRANSIT', '2026-01-02T00:00:00Z');
      await make('b1', b, 'PARTIALLY_RECEIVED', '2026-01-03T00:00:00Z');
      await make('b2', b, 'RECEIVED', '2026-01-04T00:00:00Z');
      await make('a3', a, 'RECEIVED', '2026-01-05T12:00:00Z');
    });

    const names = async (qs: string) => {
      const res = await rest<{ inbound_shipments: { id: string }[] }>(app, store, `/inbound-shipments${qs}`);
      expect(res.status).toBe(200);
      const byId = Object.fromEntries(Object.entries(ids).map(([k, v]) => [v, k]));
      return res.body.inbound_shipments.map((s) => byId[s.id]);
    };

    it('lists most recently updated first', async () => {
      expect(await names('')).toEqual(['a3', 'b2', 'b1', 'a2', 'a1']);
    });

    it('filters by status, location, created_at_min (inclusive), created_at_max (exclusive), alone and combined', async () => {
      expect(await names('?status=RECEIVED')).toEqual(['a3', 'b2']);
      expect(await names('?status=PENDING')).toEqual(['a1']);
      expect(await names('?status=IN_TRANSIT')).toEqual(['a2']);
      expect(await names('?status=PARTIALLY_RECEIVED')).toEqual(['b1']);
      expect(await names(`?location_id=${a}`)).toEqual(['a3', 'a2', 'a1']);
      expect(await names('?created_at_min=2026-01-02T00:00:00Z')).toEqual(['a3', 'b2', 'b1', 'a2']);
      expect(await names('?created_at_max=2026-01-02T00:00:00Z')).toEqual(['a1']);
      expect(await names('?created_at_min=2026-01-02&created_at_max=2026-01-04')).toEqual(['b1', 'a2']);
      expect(await names('?created_at_min=2026-01-05T13:00:00%2B01:00')).toEqual(['a3']);
      expect(await names(`?status=RECEIVED&location_id=${b}`)).toEqual(['b2']);
      expect(await names(`?status=RECEIVED&location_id=${a}&created_at_min=2026-01-05&created_at_max=2026-01-06`)).toEqual(['a3']);
      expect(await names(`?location_id=${b}&created_at_max=2026-01-04`)).toEqual(['b1']);
      expect(await names('?location_id=loc_unknown')).toEqual([]);
    });

    it('answers 400 for unknown filter values, bad dates and unknown parameters', async () => {
      for (const qs of ['?status=received', '?status=DONE', '?created_at_min=yesterday', '?created_at_max=2026-02-30', '?created_at_min=2026-01-01T00:00:00', '?location_id=']) {
        const res = await rest<{ type: string; errors: { pointer: string }[] }>(app, store, `/inbound-shipments${qs}`);
        expect(res.status, qs).toBe(400);
        expect(res.contentType).toContain('application/problem+json');
        expect(res.body.type).toBe('/problems/validation-failed');
        expect(res.body.errors[0]!.pointer).toBe(`query#${qs.slice(1).split('=')[0]}`);
      }
      const both = await rest<{ errors: unknown[] }>(app, store, '/inbound-shipments?status=x&created_at_min=y');
      expect(both.body.errors).toHaveLength(2);
      // An unknown parameter is ignored and named (decisions 17).
      const unknown = await rest(app, store, '/inbound-shipments?state=PENDING');
      expect(unknown.status).toBe(200);
      expect(unknown.ignored).toBe('state');
    });

    it('walks pages with X-Page-Next, filtered and not, and binds cursors to their filters', async () => {
      const all = await walk<{ id: string }>(app, store, '/inbound-shipments', 'inbound_shipments', 2);
      expect(all.pages).toBe(3);
      expect(all.rows.map((r) => r.id)).toEqual(['a3', 'b2', 'b1', 'a2', 'a1'].map((n) => ids[n]));
      const atA = await walk<{ id: string }>(app, store, `/inbound-shipments?location_id=${a}`, 'inbound_shipments', 1);
      expect(atA.rows.map((r) => r.id)).toEqual(['a3', 'a2', 'a1'].map((n) => ids[n]));
      const first = await rest(app, store, '/inbound-shipments?page-size=1');
      const mismatched = await rest<{ type: string }>(app, store, `/inbound-shipments?status=RECEIVED&page-continue=${encodeURIComponent(first.next!)}`);
      expect(mismatched.status).toBe(400);
      expect(mismatched.body.type).toBe('/problems/invalid-cursor');
    });

    it('404s a shipment of another store or account, and checks the inbound_shipments_read scope', async () => {
      expect((await rest(app, acme, `/inbound-shipments/${ids.a1}`)).status).toBe(404);
      expect((await rest<{ type: string }>(app, store, '/inbound-shipments/inb_missing')).body.type).toBe('/problems/inbound-shipment-not-found');
      const limited = await app.service.runtime.accounts.createSecret(store.accountId, ['inventory_read']);
      const denied = await rest<{ type: string; detail: string }>(app, store, '/inbound-shipments', limited.apiSecret);
      expect(denied.status).toBe(403);
      expect(denied.body.detail).toContain('inbound_shipments_read');
      expect((await rest(app, store, `/inbound-shipments/${ids.a1}`, limited.apiSecret)).status).toBe(403);
      // GraphQL: another account's shipment does not exist for this caller.
      const foreign = await gqlError(app, IN_TRANSIT, { id: ids.a1 }, acme.apiSecret);
      expect(foreign.extensions).toMatchObject({ problem: 'inbound-shipment-not-found' });
    });
  });
});
