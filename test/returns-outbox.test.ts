import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { OUTBOX_EVENTS, query } from './support/database.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';

describe('return changes and their outbox events', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Acme');
  beforeAll(async () => {
    await pushOrder(app, acme, orderBody({ id: 'O-1' }, [{ id: 'a', quantity: 20, price: '4.00', sku: 'SKU-A', title: 'Mug' }]));
  });

  const events = (returnId: string) =>
    query<{ data: any }>(app.databaseUrl, `select data from ${OUTBOX_EVENTS} where data->>'subjectId' = $1 order by sequence`, [returnId]);
  const create = async () => (await postReturn(app, acme, returnBody('O-1', [{ lineItemId: 'a', quantity: 1, reason: 'r' }]))).body.return.id as string;
  const put = (id: string, status: string) =>
    app.request(`/v2.2/returns/${id}/status`, { method: 'PUT', token: acme.apiSecret, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ status }) });

  it('writes return.created, then return.updated for every committed change, with the new state', async () => {
    const id = await create();
    await app.request(`/v2.2/returns/${id}/comments`, { method: 'POST', token: acme.apiSecret, headers: { 'content-type': 'application/json' }, body: '{"comment":{"message":"hi"}}' });
    await app.graphql(`mutation($id: ID!) { recordReturnShipmentEvent(returnId: $id, input: {status: in_transit, trackingNumber: "T1"}) { id } }`, { id }, acme.apiSecret);
    expect((await put(id, 'complete')).status).toBe(204);
    const list = await events(id);
    expect(list.map((e) => [e.data.type, e.data.data.return.status, e.data.data.previousStatus])).toEqual([
      ['return.created', 'open', null],
      ['return.updated', 'open', 'open'],
      ['return.updated', 'in_transit', 'open'],
      ['return.updated', 'complete', 'in_transit'],
    ]);
    const last = list[3]!.data;
    expect(last).toMatchObject({ id: expect.stringMatching(/^evt_/), storeId: acme.storeId, subjectType: 'return', subjectId: id });
    expect(last.data.destinationLocationId).toBeNull();
    expect(last.data.return.items[0]).toMatchObject({ sku: 'SKU-A', quantity: 1, orderItem: { line_item_id: 'a' } });
    expect(last.data.order).toMatchObject({ externalId: 'O-1' });
  });

  it('writes nothing for a refused change (forbidden transition, over-return)', async () => {
    const id = await create();
    expect((await put(id, 'complete')).status).toBe(204);
    expect((await put(id, 'flagged')).status).toBe(409);
    expect((await events(id)).map((e) => e.data.type)).toEqual(['return.created', 'return.updated']);
    // Return events only: the completion above makes restock publish inventory events meanwhile.
    const returnEvents = `select count(*)::int as n from ${OUTBOX_EVENTS} where data->>'subjectType' = 'return'`;
    const before = await query(app.databaseUrl, returnEvents);
    expect((await postReturn(app, acme, returnBody('O-1', [{ lineItemId: 'a', quantity: 99, reason: 'r' }]))).status).toBe(409);
    expect(await query(app.databaseUrl, returnEvents)).toEqual(before);
  });

  it('rolls the event back with the change when the commit fails, and keeps neither', async () => {
    const id = await create();
    // A deferred check that fails at commit time, after the event row was written in the same transaction.
    await query(
      app.databaseUrl,
      `create or replace function returns.fail_flag() returns trigger language plpgsql as $$
       begin if new.status = 'flagged' and new.id = '${id}' then raise exception 'storage refused the change'; end if; return new; end $$`,
    );
    await query(app.databaseUrl, `create constraint trigger fail_flag after update on returns.return deferrable initially deferred for each row execute function returns.fail_flag()`);
    try {
      const res = await put(id, 'flagged');
      expect(res.status).toBe(500);
      expect(await res.text()).not.toContain('storage refused');
    } finally {
      await query(app.databaseUrl, 'drop trigger fail_flag on returns.return');
    }
    const [row] = await query<{ status: string }>(app.databaseUrl, 'select status from returns.return where id = $1', [id]);
    expect(row!.status).toBe('open');
    expect((await events(id)).map((e) => e.data.type)).toEqual(['return.created']);
  });
});
