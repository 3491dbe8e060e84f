import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { OUTBOX_EVENTS, query } from './support/database.js';
import { ADJUST, RECEIVE, createLocation, createShipment, upsertProduct } from './inventory-fixtures.js';

/** Racing requests on the same rows: no unit may be lost, doubled or taken below zero. */
describe('inventory under concurrent writers', () => {
  const app = useTestApp({ DB_POOL_SIZE: '10' });
  const acme = useTestAccount(app, 'Acme');
  let dock: string;
  let widget: string;
  let bolt: string;

  beforeAll(async () => {
    dock = await createLocation(app, acme.storeId, 'Dock');
    widget = await upsertProduct(app, acme.storeId, { sku: 'WIDGET', title: 'Widget' });
    bolt = await upsertProduct(app, acme.storeId, { sku: 'BOLT', title: 'Bolt' });
  });

  const stock = async (sku: string) => {
    const rows = await query<{ total: number; here: number }>(
      app.databaseUrl,
      `select i.quantity as total, coalesce((select quantity from inventory.inventory_level where item_id = i.id and location_id = $2), 0) as here
         from inventory.inventory_item i where i.store_id = $1 and i.sku = $3 and i.kind = 'PRODUCT' and i.lot_number = ''`,
      [acme.storeId, dock, sku],
    );
    return rows[0] ?? { total: 0, here: 0 };
  };

  it('concurrent receipts of one shipment add every unit once and never exceed what is expected', async () => {
    const s = await createShipment(app, acme.storeId, { locationId: dock, items: [{ productId: widget, quantity: 20 }, { productId: bolt, quantity: 20 }] });
    const [w, b] = s.items;
    // 30 racing receipts of one unit on each line: exactly 20 per line can succeed.
    const results = await Promise.all(
      Array.from({ length: 30 }, () =>
        app.graphql(RECEIVE, {
          id: s.id,
          items: [
            { itemId: w!.id, receivedQuantity: 1 },
            { itemId: b!.id, receivedQuantity: 1 },
          ],
        }),
      ),
    );
    const ok = results.filter((r) => !r.errors);
    const refused = results.filter((r) => r.errors);
    expect(ok).toHaveLength(20);
    for (const r of refused) expect(r.errors![0]!.extensions).toMatchObject({ problem: expect.stringMatching(/^(quantity-exceeds-expected|invalid-transition)$/) });
    expect(await stock('WIDGET')).toEqual({ total: 20, here: 20 });
    expect(await stock('BOLT')).toEqual({ total: 20, here: 20 });
    const [row] = await query<{ status: string; received: number }>(
      app.databaseUrl,
      `select s.status, (select sum(received_quantity)::int from inventory.inbound_shipment_item where shipment_id = s.id) as received
         from inventory.inbound_shipment s where id = $1`,
      [s.id],
    );
    expect(row).toEqual({ status: 'RECEIVED', received: 40 });
  });

  it('concurrent adjustments and receipts on one item sum exactly, and removals never go below zero', async () => {
    const before = (await stock('WIDGET')).here;
    const s = await createShipment(app, acme.storeId, { locationId: dock, items: [{ productId: widget, quantity: 10 }] });
    const adds = Array.from({ length: 15 }, () => app.graphql(ADJUST, { storeId: acme.storeId, input: { productId: widget, locationId: dock, delta: 2 } }));
    const receipts = Array.from({ length: 10 }, () => app.graphql(RECEIVE, { id: s.id, items: [{ itemId: s.items[0]!.id, receivedQuantity: 1 }] }));
    const results = await Promise.all([...adds, ...receipts]);
    expect(results.filter((r) => r.errors)).toEqual([]);
    const afterAdds = before + 30 + 10;
    expect(await stock('WIDGET')).toEqual({ total: afterAdds, here: afterAdds });

    // More removals than there are units: exactly the units on hand are removed, the rest refused.
    const removals = await Promise.all(
      Array.from({ length: afterAdds + 15 }, () => app.graphql(ADJUST, { storeId: acme.storeId, input: { productId: widget, locationId: dock, delta: -1 } })),
    );
    const removed = removals.filter((r) => !r.errors).length;
    expect(removed).toBe(afterAdds);
    for (const r of removals.filter((x) => x.errors)) expect(r.errors![0]!.extensions).toMatchObject({ problem: 'insufficient-stock' });
    expect(await stock('WIDGET')).toEqual({ total: 0, here: 0 });
  });

  it('creates one item when the first units of a sku arrive concurrently', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, () => app.graphql(ADJUST, { storeId: acme.storeId, input: { sku: 'FRESH', locationId: dock, kind: 'UNKNOWN', delta: 1 } })),
    );
    expect(results.filter((r) => r.errors)).toEqual([]);
    const items = await query<{ quantity: number }>(app.databaseUrl, `select quantity from inventory.inventory_item where store_id = $1 and sku = 'FRESH'`, [acme.storeId]);
    expect(items).toEqual([{ quantity: 12 }]);
    const created = await query(
      app.databaseUrl,
      `select 1 from ${OUTBOX_EVENTS} where data->>'type' = 'inventory_item.created' and data->'data'->'inventory_item'->>'sku' = 'FRESH'`,
    );
    expect(created).toHaveLength(1);
  });
});
