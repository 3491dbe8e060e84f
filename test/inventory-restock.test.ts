import { beforeAll, describe, expect, it } from 'vitest';
import type { OutboxEvent } from '../platform/jobs/outbox.js';
import { RESTOCK_QUEUE } from '../subgraphs/inventory/restock.job.js';
import { RestockService } from '../subgraphs/inventory/restock.service.js';
import { useTestAccount, useTestApp, type TestAccount } from './support/app.js';
import { consumedEvents, jobRows, OUTBOX_EVENTS, query } from './support/database.js';
import { orderBody, postReturn, pushOrder, returnBody, type OrderLine } from './support/returns.js';
import { createLocation, gql, rest, upsertProduct } from './inventory-fixtures.js';
import { eventually } from './support/eventually.js';

/**
 * Restock is driven by the returns subgraph's real `return.updated` events:
 * orders and returns go in through REST, completions through the status
 * route, and the restock queue receives what the returns subgraph published.
 */
describe('restock of completed returns', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Acme');
  let dock: string;

  beforeAll(async () => {
    dock = await createLocation(app, acme.storeId, 'Returns dock');
    await upsertProduct(app, acme.storeId, { sku: 'TEE-S', title: 'Tee', variantTitle: 'S' });
    await upsertProduct(app, acme.storeId, { sku: 'HAT', title: 'Hat' });
    await returnLocation(acme, dock);
  });

  async function returnLocation(account: TestAccount, locationId: string | null) {
    await gql(app, 'mutation($s: ID!, $i: StoreSettingsInput!) { updateStoreSettings(storeId: $s, input: $i) { storeId } }', { s: account.storeId, i: { returnLocationId: locationId } });
  }

  /** An order with these lines and one return of all of them: its id. */
  async function openReturn(account: TestAccount, lines: OrderLine[]): Promise<string> {
    const order = orderBody({}, lines);
    expect((await pushOrder(app, account, order)).status).toBe(200);
    const created = await postReturn(app, account, returnBody(order.id as string, lines.map((l) => ({ lineItemId: l.id, quantity: l.quantity, reason: 'unwanted' }))));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.return.id as string;
  }

  async function setStatus(account: TestAccount, returnId: string, status: string) {
    const res = await app.request(`/v2.2/returns/${returnId}/status`, { method: 'PUT', token: account.apiSecret, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ status }) });
    expect(res.status).toBe(204);
  }

  /** A return's `return.updated` events, oldest first, once restock has read all of them (at least `count`) and worked any job queued for it. */
  async function restocked(returnId: string, count: number): Promise<OutboxEvent[]> {
    const events = await consumedEvents<OutboxEvent>(app.databaseUrl, RESTOCK_QUEUE, `e.subject_id = $2 and e.type = 'return.updated'`, [returnId], count);
    await eventually(async () => {
      const rows = await jobRows(app.databaseUrl, { names: [RESTOCK_QUEUE], unfinished: true });
      return rows.filter((j) => (j.data as { subjectId?: string }).subjectId === returnId).length === 0;
    }, 'the restock jobs to be worked');
    return events;
  }

  const stockAt = async (storeId = acme.storeId) =>
    query<{ sku: string; kind: string; name: string; location: string; quantity: number }>(
      app.databaseUrl,
      `select i.sku, i.kind, i.name, loc.name as location, l.quantity
         from inventory.inventory_level l join inventory.inventory_item i on i.id = l.item_id join inventory.location loc on loc.id = l.location_id
        where i.store_id = $1 order by i.sku, i.kind, loc.name`,
      [storeId],
    );

  it('restock-unknown-title: adds known skus as RETURN and an unknown one as UNKNOWN named by its order line title, at the return location', async () => {
    const returnId = await openReturn(acme, [
      { id: 'l-tee', sku: 'TEE-S', title: 'Tee', quantity: 2, price: '10.00' },
      { id: 'l-hat', sku: 'HAT', title: 'Hat', quantity: 1, price: '5.00' },
      { id: 'l-box', sku: 'MYSTERY-9', title: 'Mystery box', quantity: 3, price: '1.00' },
    ]);
    await setStatus(acme, returnId, 'complete');
    await restocked(returnId, 1);
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
    const announced = await query(app.databaseUrl, `select 1 from ${OUTBOX_EVENTS} where data->>'type' = 'inventory_item.created' and data->'data'->'inventory_item'->>'sku' = 'MYSTERY-9'`);
    expect(announced).toHaveLength(1);
  });

  it('restocks each return item exactly once: a redelivered event, a reopened and re-completed return, and racing runs', async () => {
    const store = await app.createAccount('Once');
    const loc = await createLocation(app, store.storeId, 'Back room');
    await upsertProduct(app, store.storeId, { sku: 'HAT', title: 'Hat' });
    await returnLocation(store, loc);
    const returnId = await openReturn(store, [
      { id: 'a', sku: 'HAT', quantity: 2, price: '5.00' },
      { id: 'b', sku: 'HAT', quantity: 1, price: '5.00' },
    ]);
    await setStatus(store, returnId, 'complete');
    const [completion] = await restocked(returnId, 1);
    expect((await stockAt(store.storeId)).map((r) => r.quantity)).toEqual([3]);

    // The same completion delivered again (through the consumer's queue), then a reopen and a second completion.
    await app.service.runtime.boss.send(RESTOCK_QUEUE, completion!);
    await setStatus(store, returnId, 'open');
    await setStatus(store, returnId, 'complete');
    await restocked(returnId, 3);
    expect((await stockAt(store.storeId)).map((r) => r.quantity)).toEqual([3]);

    // Three workers running the same job at once (as after a lost lock): one restocks, the others find the ledger.
    // The job is the real completion, its items renamed so that none was restocked yet.
    const data = completion!.data as { items: { id: string; quantity: number }[] };
    const racing = { ...completion!, id: 'evt_racing', data: { ...data, items: data.items.map((i) => ({ ...i, id: `${i.id}-racing` })) } };
    const restock = new RestockService(app.service.runtime.logger);
    const { orm } = app.service.runtime.deps.inventory!;
    const run = () => orm.em.fork().transactional((em) => restock.handle(em, racing));
    const results = await Promise.all([run(), run(), run()]);
    expect(results.map((r) => r.restocked).sort()).toEqual([0, 0, 2]);
    expect((await stockAt(store.storeId)).map((r) => r.quantity)).toEqual([6]);

    const ledger = await query<{ n: number }>(app.databaseUrl, 'select count(*)::int as n from inventory.restock_ledger where store_id = $1', [store.storeId]);
    expect(ledger[0]!.n).toBe(4);
  });

  it('ignores returns that are not complete', async () => {
    const store = await app.createAccount('Pending');
    await upsertProduct(app, store.storeId, { sku: 'HAT', title: 'Hat' });
    const statuses = ['flagged', 'rejected', 'deleted'];
    for (const status of statuses) {
      const returnId = await openReturn(store, [{ id: `x-${status}`, sku: 'HAT', quantity: 1, price: '5.00' }]);
      await setStatus(store, returnId, status);
      await restocked(returnId, 1);
    }
    expect(await stockAt(store.storeId)).toEqual([]);
  });

  it('restocks at a "Returns" location created once on demand when the store has no return location', async () => {
    const store = await app.createAccount('Nowhere');
    await upsertProduct(app, store.storeId, { sku: 'HAT', title: 'Hat' });
    const ids = [
      await openReturn(store, [{ id: 'h1', sku: 'HAT', quantity: 1, price: '5.00' }]),
      await openReturn(store, [{ id: 'o1', sku: 'ODD', title: 'Odd thing', quantity: 2, price: '5.00' }]),
      await openReturn(store, [{ id: 'h2', sku: 'HAT', quantity: 4, price: '5.00' }]),
    ];
    await Promise.all(ids.map((id) => setStatus(store, id, 'complete')));
    for (const id of ids) await restocked(id, 1);
    const locations = await query<{ name: string }>(app.databaseUrl, 'select name from inventory.location where store_id = $1', [store.storeId]);
    expect(locations).toEqual([{ name: 'Returns' }]);
    expect(await stockAt(store.storeId)).toEqual([
      { sku: 'HAT', kind: 'RETURN', name: 'Hat', location: 'Returns', quantity: 5 },
      { sku: 'ODD', kind: 'UNKNOWN', name: 'Odd thing', location: 'Returns', quantity: 2 },
    ]);
  });

  it('poison-restock-visible: a restock that keeps failing lands in its dead-letter queue with the reason, and is retried after the fix', async () => {
    const store = await app.createAccount('Poison');
    await upsertProduct(app, store.storeId, { sku: 'HAT', title: 'Hat' });
    await query(
      app.databaseUrl,
      `create function inventory.refuse_restock() returns trigger language plpgsql as $$ begin raise exception 'restock refused'; end $$;
       create trigger refuse_restock before insert on inventory.restock_ledger for each row when (new.store_id = '${store.storeId}') execute function inventory.refuse_restock();`,
    );
    const { boss } = app.service.runtime;
    await boss.updateQueue(RESTOCK_QUEUE, { retryLimit: 0 });
    try {
      const returnId = await openReturn(store, [{ id: 'p', sku: 'HAT', quantity: 1, price: '5.00' }]);
      await setStatus(store, returnId, 'complete');
      const letter = await eventually(async () => {
        const result = await gql<{ deadLetters: { id: string; data: { subjectId: string }; error: { message?: string } | null }[] }>(app, '{ deadLetters(queue: "inventory-restock") { id data error } }');
        return result.deadLetters.find((d) => d.data.subjectId === returnId);
      }, 'the dead letter');
      expect(JSON.stringify(letter.error)).toContain('restock refused');
      expect(await stockAt(store.storeId)).toEqual([]);
      await query(app.databaseUrl, 'drop trigger refuse_restock on inventory.restock_ledger');
      expect(await gql<{ retryDeadLetters: number }>(app, 'mutation($ids: [ID!]) { retryDeadLetters(queue: "inventory-restock", ids: $ids) }', { ids: [letter.id] })).toEqual({ retryDeadLetters: 1 });
      await eventually(async () => (await stockAt(store.storeId)).length > 0, 'the retried restock');
      expect((await stockAt(store.storeId)).map((r) => r.quantity)).toEqual([1]);
    } finally {
      await boss.updateQueue(RESTOCK_QUEUE, { retryLimit: 10 });
      await query(app.databaseUrl, 'drop trigger if exists refuse_restock on inventory.restock_ledger');
    }
  });
});
