import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { OUTBOX_EVENTS, query } from './support/database.js';
import { ADJUST, ITEM_FIELDS, adjust, createLocation, gql, gqlError, rest, upsertProduct, walk, type ItemResult } from './inventory-fixtures.js';

const ITEM_KEYS = ['created_at', 'expiration_date', 'id', 'kind', 'locations', 'lot_number', 'name', 'quantity', 'sku', 'updated_at'];

interface RestItem {
  id: string;
  sku: string;
  name: string;
  kind: string;
  quantity: number;
  locations: { location_id: string; location_name: string; quantity: number }[];
}

describe('inventory items', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Acme');
  let north: string;
  let south: string;
  let shirt: string;

  beforeAll(async () => {
    north = await createLocation(app, acme.storeId, 'North');
    south = await createLocation(app, acme.storeId, 'South');
    shirt = await upsertProduct(app, acme.storeId, { sku: 'SHIRT', title: 'Shirt', variantTitle: 'Blue' });
  });

  it('keeps per-location quantities whose sum is the total, in the REST shape of the spec', async () => {
    await adjust(app, acme.storeId, { productId: shirt, locationId: north, delta: 7 });
    const item = await adjust(app, acme.storeId, { sku: 'SHIRT', locationId: south, delta: 3 });
    expect(item).toMatchObject({ sku: 'SHIRT', name: 'Shirt - Blue', kind: 'PRODUCT', quantity: 10, lotNumber: null });
    expect(item.locations).toEqual([
      { locationId: north, locationName: 'North', quantity: 7 },
      { locationId: south, locationName: 'South', quantity: 3 },
    ]);
    const { status, body } = await rest<{ inventory_item: RestItem }>(app, acme, `/inventory-items/${item.id}`);
    expect(status).toBe(200);
    expect(Object.keys(body.inventory_item).sort()).toEqual(ITEM_KEYS);
    expect(body.inventory_item).toMatchObject({
      id: item.id,
      sku: 'SHIRT',
      name: 'Shirt - Blue',
      kind: 'PRODUCT',
      lot_number: null,
      expiration_date: null,
      quantity: 10,
      locations: [
        { location_id: north, location_name: 'North', quantity: 7 },
        { location_id: south, location_name: 'South', quantity: 3 },
      ],
    });
    // With a location filter, quantity is the quantity there.
    const atSouth = await rest<{ inventory_items: RestItem[] }>(app, acme, `/inventory-items?location_id=${south}&sku=SHIRT`);
    expect(atSouth.body.inventory_items).toHaveLength(1);
    expect(atSouth.body.inventory_items[0]!.quantity).toBe(3);
    expect(atSouth.body.inventory_items[0]!.locations).toHaveLength(2);
    const [stored] = await query<{ total: number; sum: number }>(
      app.databaseUrl,
      'select i.quantity as total, (select sum(quantity)::int from inventory.inventory_level where item_id = i.id) as sum from inventory.inventory_item i where id = $1',
      [item.id],
    );
    expect(stored).toEqual({ total: 10, sum: 10 });
  });

  it('refuses a removal below zero (409 insufficient-stock) and leaves the stock alone', async () => {
    const error = await gqlError(app, ADJUST, { storeId: acme.storeId, input: { productId: shirt, locationId: south, delta: -4 } });
    expect(error.extensions).toMatchObject({ problem: 'insufficient-stock', status: 409 });
    expect(error.message).toContain('3 on hand');
    const item = await adjust(app, acme.storeId, { productId: shirt, locationId: south, delta: -3 });
    expect(item.quantity).toBe(7);
    expect(item.locations).toEqual([{ locationId: north, locationName: 'North', quantity: 7 }]);
  });

  it('validates adjustments: unknown location or product (404), missing product, zero delta, mismatched sku', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ productId: shirt, locationId: 'loc_missing', delta: 1 }, 'location-not-found'],
      [{ productId: 'prd_missing', locationId: north, delta: 1 }, 'product-not-found'],
      [{ sku: 'NOPE', locationId: north, delta: 1 }, 'product-not-found'],
      [{ locationId: north, delta: 1 }, 'validation-failed'],
      [{ productId: shirt, locationId: north, delta: 0 }, 'validation-failed'],
      [{ productId: shirt, sku: 'OTHER', locationId: north, delta: 1 }, 'validation-failed'],
    ];
    for (const [input, problem] of cases) {
      const error = await gqlError(app, ADJUST, { storeId: acme.storeId, input });
      expect(error.extensions?.problem, JSON.stringify(input)).toBe(problem);
    }
    const other = await app.createAccount('Other');
    const denied = await gqlError(app, ADJUST, { storeId: acme.storeId, input: { productId: shirt, locationId: north, delta: 1 } }, other.apiSecret);
    expect(denied.extensions).toMatchObject({ problem: 'store-not-found' });
  });

  it('hides items at zero from lists but keeps them readable with their history', async () => {
    const mug = await upsertProduct(app, acme.storeId, { sku: 'MUG', title: 'Mug' });
    const item = await adjust(app, acme.storeId, { productId: mug, locationId: north, delta: 2 });
    const listed = async () => (await rest<{ inventory_items: RestItem[] }>(app, acme, '/inventory-items?sku=MUG')).body.inventory_items;
    expect((await listed()).map((i) => i.id)).toEqual([item.id]);
    await adjust(app, acme.storeId, { productId: mug, locationId: north, delta: -2 });
    expect(await listed()).toEqual([]);
    expect((await rest<{ inventory_items: RestItem[] }>(app, acme, `/inventory-items?location_id=${north}&sku=MUG`)).body.inventory_items).toEqual([]);
    const kept = await rest<{ inventory_item: RestItem }>(app, acme, `/inventory-items/${item.id}`);
    expect(kept.status).toBe(200);
    expect(kept.body.inventory_item).toMatchObject({ quantity: 0, locations: [] });
    expect(await query(app.databaseUrl, 'select 1 from inventory.inventory_level where item_id = $1', [item.id])).toHaveLength(1);
    // Back in stock, the same item reappears.
    await adjust(app, acme.storeId, { productId: mug, locationId: north, delta: 1 });
    expect((await listed()).map((i) => i.id)).toEqual([item.id]);
  });

  it('receives undeclared stock as kind UNDECLARED, for known and unknown skus', async () => {
    const RECEIVE_UNDECLARED = `mutation($storeId: ID!, $input: ReceiveUndeclaredInput!) { receiveUndeclared(storeId: $storeId, input: $input) { ${ITEM_FIELDS} } }`;
    const known = (await gql<{ receiveUndeclared: ItemResult }>(app, RECEIVE_UNDECLARED, { storeId: acme.storeId, input: { locationId: north, sku: 'SHIRT', quantity: 2 } }))
      .receiveUndeclared;
    expect(known).toMatchObject({ kind: 'UNDECLARED', sku: 'SHIRT', name: 'Shirt - Blue', quantity: 2 });
    const stranger = (await gql<{ receiveUndeclared: ItemResult }>(app, RECEIVE_UNDECLARED, { storeId: acme.storeId, input: { locationId: south, sku: 'ODD-1', quantity: 1 } }))
      .receiveUndeclared;
    expect(stranger).toMatchObject({ kind: 'UNDECLARED', sku: 'ODD-1', name: 'ODD-1', quantity: 1 });
    const bad = await gqlError(app, RECEIVE_UNDECLARED, { storeId: acme.storeId, input: { locationId: south, sku: 'ODD-1', quantity: 0 } });
    expect(bad.extensions).toMatchObject({ problem: 'validation-failed', errors: [{ pointer: '/input/quantity' }] });
  });

  it('renames items when their product changes and announces it', async () => {
    const prod = await upsertProduct(app, acme.storeId, { sku: 'CAP', title: 'Cap' });
    const item = await adjust(app, acme.storeId, { productId: prod, locationId: north, delta: 1 });
    await upsertProduct(app, acme.storeId, { sku: 'CAP', title: 'Cap', variantTitle: 'Red' });
    const read = await rest<{ inventory_item: RestItem }>(app, acme, `/inventory-items/${item.id}`);
    expect(read.body.inventory_item.name).toBe('Cap - Red');
    const events = await query<{ type: string; name: string }>(
      app.databaseUrl,
      `select data->>'type' as type, data->'data'->'inventory_item'->>'name' as name from ${OUTBOX_EVENTS}
        where data->>'subjectId' = $1 order by sequence`,
      [item.id],
    );
    expect(events).toEqual([
      { type: 'inventory_item.created', name: 'Cap' },
      { type: 'inventory_item.updated', name: 'Cap - Red' },
    ]);
  });

  describe('GET /inventory-items filters and pages', () => {
    const store = useTestAccount(app, 'Lister');
    let a: string;
    let b: string;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      a = await createLocation(app, store.storeId, 'A');
      b = await createLocation(app, store.storeId, 'B');
      const p1 = await upsertProduct(app, store.storeId, { sku: 'P1', title: 'One' });
      const p2 = await upsertProduct(app, store.storeId, { sku: 'P2', title: 'Two' });
      // In this order, so the newest update comes last.
      ids.p1 = (await adjust(app, store.storeId, { productId: p1, locationId: a, delta: 5 })).id;
      ids.p1lot = (await adjust(app, store.storeId, { productId: p1, locationId: b, delta: 2, lotNumber: 'L7', expirationDate: '2027-01-31' })).id;
      ids.p2ret = (await adjust(app, store.storeId, { productId: p2, locationId: b, kind: 'RETURN', delta: 1 })).id;
      ids.unknown = (await adjust(app, store.storeId, { sku: 'ZZ', locationId: a, kind: 'UNKNOWN', delta: 4 })).id;
      ids.p2 = (await adjust(app, store.storeId, { productId: p2, locationId: a, delta: 3 })).id;
      await adjust(app, store.storeId, { productId: p2, locationId: b, delta: 6 });
    });

    const names = async (qs: string) => {
      const res = await rest<{ inventory_items: RestItem[] }>(app, store, `/inventory-items${qs}`);
      expect(res.status, qs).toBe(200);
      const byId = Object.fromEntries(Object.entries(ids).map(([k, v]) => [v, k]));
      return res.body.inventory_items.map((i) => `${byId[i.id]}:${i.quantity}`);
    };

    it('lists items with stock, most recently updated first', async () => {
      expect(await names('')).toEqual(['p2:9', 'unknown:4', 'p2ret:1', 'p1lot:2', 'p1:5']);
    });

    it('filters by location (quantity there), kind, sku, lot_number, alone and combined', async () => {
      expect(await names(`?location_id=${a}`)).toEqual(['p2:3', 'unknown:4', 'p1:5']);
      expect(await names(`?location_id=${b}`)).toEqual(['p2:6', 'p2ret:1', 'p1lot:2']);
      expect(await names('?kind=PRODUCT')).toEqual(['p2:9', 'p1lot:2', 'p1:5']);
      expect(await names('?kind=RETURN')).toEqual(['p2ret:1']);
      expect(await names('?kind=UNKNOWN')).toEqual(['unknown:4']);
      expect(await names('?kind=UNDECLARED')).toEqual([]);
      expect(await names('?sku=P1')).toEqual(['p1lot:2', 'p1:5']);
      expect(await names('?lot_number=L7')).toEqual(['p1lot:2']);
      expect(await names(`?location_id=${b}&kind=PRODUCT`)).toEqual(['p2:6', 'p1lot:2']);
      expect(await names(`?location_id=${a}&sku=P2`)).toEqual(['p2:3']);
      expect(await names(`?location_id=${a}&lot_number=L7`)).toEqual([]);
      expect(await names(`?location_id=${b}&sku=P1&kind=PRODUCT&lot_number=L7`)).toEqual(['p1lot:2']);
      expect(await names('?kind=RETURN&sku=P2')).toEqual(['p2ret:1']);
      expect(await names('?location_id=loc_unknown')).toEqual([]);
    });

    it('answers 400 for unknown kinds, empty values and unknown parameters', async () => {
      for (const [qs, pointer] of [
        ['?kind=product', 'query#kind'],
        ['?kind=LOST', 'query#kind'],
        ['?sku=', 'query#sku'],
      ] as const) {
        const res = await rest<{ type: string; errors: { pointer: string }[] }>(app, store, `/inventory-items${qs}`);
        expect(res.status, qs).toBe(400);
        expect(res.body.type).toBe('/problems/validation-failed');
        expect(res.body.errors[0]!.pointer).toBe(pointer);
      }
      // An unknown parameter is ignored and named (decisions 17).
      const unknown = await rest(app, store, '/inventory-items?location=x');
      expect(unknown.status).toBe(200);
      expect(unknown.ignored).toBe('location');
    });

    it('walks every page once, filtered by location or not', async () => {
      const all = await walk<RestItem>(app, store, '/inventory-items', 'inventory_items', 2);
      expect(all.pages).toBe(3);
      expect(all.rows.map((r) => r.id)).toEqual(['p2', 'unknown', 'p2ret', 'p1lot', 'p1'].map((n) => ids[n]));
      const atB = await walk<RestItem>(app, store, `/inventory-items?location_id=${b}`, 'inventory_items', 1);
      expect(atB.rows.map((r) => `${r.id}:${r.quantity}`)).toEqual([`${ids.p2}:6`, `${ids.p2ret}:1`, `${ids.p1lot}:2`]);
    });

    it('keeps the walk exact when items change while paging (no skip, no repeat of unchanged items)', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let round = 0;
      do {
        const page: { body: { inventory_items: RestItem[] }; next: string | null } = await rest<{ inventory_items: RestItem[] }>(
          app,
          store,
          `/inventory-items?page-size=2${cursor ? `&page-continue=${encodeURIComponent(cursor)}` : ''}`,
        );
        seen.push(...page.body.inventory_items.map((i) => i.id));
        cursor = page.next;
        // A new item arrives: it sorts first and must not disturb the walk.
        await adjust(app, store.storeId, { sku: `NEW-${round++}`, locationId: a, kind: 'UNKNOWN', delta: 1 });
      } while (cursor);
      expect(seen).toEqual(['p2', 'unknown', 'p2ret', 'p1lot', 'p1'].map((n) => ids[n]));
    });

    it('serves the same filters as a GraphQL connection', async () => {
      const data = await gql<{ inventoryItems: { edges: { node: { id: string; quantity: number; product: { sku: string } | null } }[]; pageInfo: { hasNextPage: boolean } } }>(
        app,
        `query($storeId: ID!, $locationId: ID) { inventoryItems(storeId: $storeId, locationId: $locationId, kind: PRODUCT, first: 10) {
           edges { node { id quantity product { sku } } } pageInfo { hasNextPage } } }`,
        { storeId: store.storeId, locationId: b },
      );
      expect(data.inventoryItems.edges.map((e) => [e.node.id, e.node.quantity, e.node.product?.sku])).toEqual([
        [ids.p2, 6, 'P2'],
        [ids.p1lot, 2, 'P1'],
      ]);
      expect(data.inventoryItems.pageInfo.hasNextPage).toBe(false);
    });

    it('checks the inventory_read scope and hides other accounts', async () => {
      const limited = await app.service.runtime.accounts.createSecret(store.accountId, ['inbound_shipments_read']);
      const denied = await rest<{ detail: string }>(app, store, '/inventory-items', limited.apiSecret);
      expect(denied.status).toBe(403);
      expect(denied.body.detail).toContain('inventory_read');
      expect((await rest(app, acme, `/inventory-items/${ids.p1}`)).status).toBe(404);
      expect((await rest<{ type: string }>(app, store, '/inventory-items/inv_missing')).body.type).toBe('/problems/inventory-item-not-found');
    });

    it('resolves Product and InventoryItem references by either key, batched, null for invisible stores', async () => {
      const ENTITIES = `query($reps: [_Any!]!) { _entities(representations: $reps) {
        ... on Product { id sku title } ... on InventoryItem { id sku kind quantity } } }`;
      const reps = [
        { __typename: 'Product', storeId: store.storeId, sku: 'P2' },
        { __typename: 'InventoryItem', storeId: store.storeId, sku: 'P2', kind: 'RETURN' },
        { __typename: 'InventoryItem', storeId: store.storeId, sku: 'P1', kind: 'PRODUCT' },
        { __typename: 'InventoryItem', id: ids.unknown },
        { __typename: 'Product', storeId: store.storeId, sku: 'NOPE' },
      ];
      const schema = app.service.runtime.schemas.inventory!;
      const { graphql } = await import('graphql');
      const ctx = (auth: unknown) => ({ auth, credentials: {}, requestId: 'req_test', logger: app.service.runtime.logger, memo: new Map() });
      const asAdmin = await graphql({ schema, source: ENTITIES, variableValues: { reps }, contextValue: ctx({ kind: 'admin' }) });
      expect(asAdmin.errors).toBeUndefined();
      const entities = asAdmin.data!._entities as ({ id: string; sku: string; kind?: string; quantity?: number } | null)[];
      expect(entities[0]).toMatchObject({ sku: 'P2', title: 'Two' });
      expect(entities[1]).toMatchObject({ id: ids.p2ret, kind: 'RETURN', quantity: 1 });
      // The PRODUCT item of P1 without a lot (the lot L7 item is another item).
      expect(entities[2]).toMatchObject({ id: ids.p1, quantity: 5 });
      expect(entities[3]).toMatchObject({ id: ids.unknown, kind: 'UNKNOWN' });
      expect(entities[4]).toBeNull();
      const stranger = { kind: 'account', accountId: acme.accountId, secretId: 'sec_x', scopes: new Set(['inventory_read']), storeIds: new Set([acme.storeId]) };
      const asOther = await graphql({ schema, source: ENTITIES, variableValues: { reps }, contextValue: ctx(stranger) });
      expect(asOther.data!._entities).toEqual([null, null, null, null, null]);
    });
  });
});
