import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishInTransaction, type OutboxEvent } from '../platform/outbox.js';
import { RESTOCK_QUEUE } from '../subgraphs/inventory/restock.job.js';
import { RestockService } from '../subgraphs/inventory/restock.service.js';
import { startTestApp, type TestAccount, type TestApp } from './support/app.js';
import { query } from './support/database.js';
import { createLocation, eventually, rest, upsertProduct } from './inventory-fixtures.js';

interface ReturnItem {
  id: string;
  sku: string | null;
  quantity: number;
  productId?: string | null;
  title?: string;
}

/**
 * The returns subgraph emits `return.updated` (docs/outbox.md); here the test
 * plays its part and publishes the event in the documented shape.
 */
describe('restock of completed returns', () => {
  let app: TestApp;
  let acme: TestAccount;
  let dock: string;
  let seq = 0;

  beforeAll(async () => {
    app = await startTestApp();
    acme = await app.createAccount('Acme');
    dock = await createLocation(app, acme.storeId, 'Returns dock');
    await upsertProduct(app, acme.storeId, { sku: 'TEE-S', title: 'Tee', variantTitle: 'S' });
    await upsertProduct(app, acme.storeId, { sku: 'HAT', title: 'Hat' });
  });
  afterAll(async () => {
    await app?.stop();
  });

  const publish = async (returnId: string, status: string, items: ReturnItem[], destinationLocationId: string | null, storeId = acme.storeId): Promise<OutboxEvent> => {
    const { boss, platformOrm } = app.service.runtime;
    return platformOrm.em.fork().transactional((em) =>
      publishInTransaction(boss, em, {
        type: 'return.updated',
        storeId,
        subjectType: 'return',
        subjectId: returnId,
        data: {
          return: {
            id: returnId,
            status,
            items: items.map((i) => ({ orderItem: { id: `oli_${i.id}`, line_item_id: `li_${i.id}` }, variantId: null, productId: null, ...i })),
          },
          order: { id: `ord_${returnId}`, name: '#1001' },
          previousStatus: 'open',
          destinationLocationId,
        },
      }),
    );
  };

  /** Waits until the restock job of an event has finished (completed), whatever it did. */
  const processed = (event: OutboxEvent) =>
    eventually(async () => {
      const rows = await query<{ state: string }>(app.databaseUrl, `select state from pgboss.job where name = $1 and data->>'id' = $2`, [RESTOCK_QUEUE, event.id]);
      return rows[0]?.state === 'completed';
    });

  const stockAt = async (storeId = acme.storeId) =>
    query<{ sku: string; kind: string; name: string; location: string; quantity: number }>(
      app.databaseUrl,
      `select i.sku, i.kind, i.name, loc.name as location, l.quantity
         from inventory.inventory_level l join inventory.inventory_item i on i.id = l.item_id join inventory.location loc on loc.id = l.location_id
        where i.store_id = $1 order by i.sku, i.kind, loc.name`,
      [storeId],
    );

  const nextId = (prefix: string) => `${prefix}_${++seq}`;

  it('adds known skus as RETURN and unknown ones as UNKNOWN (named by their title) at the destination', async () => {
    const ret = nextId('ret');
    const event = await publish(
      ret,
      'complete',
      [
        { id: nextId('rti'), sku: 'TEE-S', quantity: 2 },
        { id: nextId('rti'), sku: 'HAT', quantity: 1 },
        { id: nextId('rti'), sku: 'MYSTERY-9', quantity: 3, title: 'Mystery box' },
      ],
      dock,
    );
    await processed(event);
    expect(await stockAt()).toEqual([
      { sku: 'HAT', kind: 'RETURN', name: 'Hat', location: 'Returns dock', quantity: 1 },
      { sku: 'MYSTERY-9', kind: 'UNKNOWN', name: 'Mystery box', location: 'Returns dock', quantity: 3 },
      { sku: 'TEE-S', kind: 'RETURN', name: 'Tee - S', location: 'Returns dock', quantity: 2 },
    ]);
    // Visible through the REST list, and announced for webhooks.
    const listed = await rest<{ inventory_items: { sku: string; kind: string; quantity: number }[] }>(app, acme, '/inventory-items?kind=RETURN');
    expect(listed.body.inventory_items.map((i) => [i.sku, i.quantity]).sort()).toEqual([
      ['HAT', 1],
      ['TEE-S', 2],
    ]);
    const announced = await query(app.databaseUrl, `select 1 from pgboss.job where name = 'webhooks-outbox' and data->>'type' = 'inventory_item.created' and data->'data'->'inventory_item'->>'sku' = 'MYSTERY-9'`);
    expect(announced).toHaveLength(1);
  });

  it('restocks each return item exactly once: redelivered events, a reopened and re-completed return, and racing runs', async () => {
    const store = await app.createAccount('Once');
    const loc = await createLocation(app, store.storeId, 'Back room');
    await upsertProduct(app, store.storeId, { sku: 'HAT', title: 'Hat' });
    const ret = nextId('ret');
    const items = [
      { id: nextId('rti'), sku: 'HAT', quantity: 2 },
      { id: nextId('rti'), sku: 'HAT', quantity: 1 },
    ];
    await processed(await publish(ret, 'complete', items, loc, store.storeId));
    expect((await stockAt(store.storeId)).map((r) => r.quantity)).toEqual([3]);

    // The same completion delivered again, then a reopen and a second completion.
    await processed(await publish(ret, 'complete', items, loc, store.storeId));
    await processed(await publish(ret, 'open', items, loc, store.storeId));
    await processed(await publish(ret, 'complete', items, loc, store.storeId));
    expect((await stockAt(store.storeId)).map((r) => r.quantity)).toEqual([3]);

    // Two workers running the same job at the same time (as after a lost lock): one restocks, the other finds the ledger.
    const racing = await publish(nextId('ret'), 'complete', [{ id: nextId('rti'), sku: 'HAT', quantity: 5 }], loc, store.storeId);
    const restock = new RestockService(app.service.runtime.deps.inventory!.orm, app.service.runtime.boss, app.service.runtime.logger);
    const results = await Promise.all([restock.handle(racing), restock.handle(racing), restock.handle(racing)]);
    expect(results.map((r) => r.restocked).sort()).toEqual([0, 0, 1]);
    await processed(racing);
    expect((await stockAt(store.storeId)).map((r) => r.quantity)).toEqual([8]);

    const ledger = await query<{ n: number }>(app.databaseUrl, 'select count(*)::int as n from inventory.restock_ledger where store_id = $1', [store.storeId]);
    expect(ledger[0]!.n).toBe(3);
  });

  it('ignores returns that are not complete', async () => {
    const store = await app.createAccount('Pending');
    const loc = await createLocation(app, store.storeId, 'Shelf');
    const events = await Promise.all(
      ['open', 'in_transit', 'delivered', 'rejected', 'deleted', 'flagged'].map((status) => publish(nextId('ret'), status, [{ id: nextId('rti'), sku: 'HAT', quantity: 1 }], loc, store.storeId)),
    );
    for (const e of events) await processed(e);
    expect(await stockAt(store.storeId)).toEqual([]);
  });

  it('restocks at a "Returns" location created once on demand when the return has no destination', async () => {
    const store = await app.createAccount('Nowhere');
    await upsertProduct(app, store.storeId, { sku: 'HAT', title: 'Hat' });
    const events = await Promise.all([
      publish(nextId('ret'), 'complete', [{ id: nextId('rti'), sku: 'HAT', quantity: 1 }], null, store.storeId),
      publish(nextId('ret'), 'complete', [{ id: nextId('rti'), sku: 'ODD', quantity: 2 }], null, store.storeId),
      publish(nextId('ret'), 'complete', [{ id: nextId('rti'), sku: 'HAT', quantity: 4 }], 'loc_not_in_this_store', store.storeId),
    ]);
    for (const e of events) await processed(e);
    const locations = await query<{ name: string }>(app.databaseUrl, 'select name from inventory.location where store_id = $1', [store.storeId]);
    expect(locations).toEqual([{ name: 'Returns' }]);
    expect(await stockAt(store.storeId)).toEqual([
      { sku: 'HAT', kind: 'RETURN', name: 'Hat', location: 'Returns', quantity: 5 },
      { sku: 'ODD', kind: 'UNKNOWN', name: 'ODD', location: 'Returns', quantity: 2 },
    ]);
  });
});
