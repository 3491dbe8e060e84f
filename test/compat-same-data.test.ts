import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { compat, seedReturn, statusOf } from './support/compat.js';
import { consumedEvents, OUTBOX_EVENTS, query } from './support/database.js';
import { eventually } from './support/eventually.js';
import { startReceiver, type Receiver } from './support/receiver.js';
import { createWebhook } from './support/webhooks.js';

/**
 * The compatibility API is a second facade over the same graph: the v2.2
 * API, GraphQL and the compatibility API see one another's changes, and a
 * compatibility action is the same domain operation, with the same outbox
 * event (so the same webhooks) and the same restock.
 */
const app = useTestApp();
const account = useTestAccount(app, 'Same data');
let locationId: string;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
  expect((await createWebhook(app, account, { callback: { url: receiver.url, auth: null }, topic: 'return' })).status).toBe(201);
  const loc = await app.graphql<any>(`mutation($s: ID!) { createLocation(storeId: $s, input: {name: "Returns dock"}) { id } }`, { s: account.storeId }, account.apiSecret);
  locationId = loc.data.createLocation.id;
  await app.graphql(`mutation($s: ID!, $l: String) { updateStoreSettings(storeId: $s, input: {returnLocationId: $l}) { storeId } }`, { s: account.storeId, l: locationId }, account.apiSecret);
  await app.graphql(`mutation($s: ID!) { upsertProduct(storeId: $s, input: {sku: "SKU-1", title: "Shirt"}) { id } }`, { s: account.storeId }, account.apiSecret);
});
afterAll(async () => {
  await receiver?.close();
});

const v2Status = async (id: string) => ((await (await app.request(`/v2.2/returns/${id}`, { token: account.apiSecret })).json()) as { return: { status: string } }).return.status;
const gqlReturn = async (id: string) =>
  (await app.graphql<{ return: { status: string; numericId: string; order: { numericId: string } } }>(`query($id: ID!) { return(id: $id) { status numericId order { numericId } } }`, { id }, account.apiSecret)).data!.return;
const loopState = async (numericId: number) => (await compat(app, account.compatKey, 'GET', `/api/v1/warehouse/return/details?return_id=${numericId}`)).body.state;

describe('one return, three APIs', () => {
  it('each API sees the changes made through the others, with the same numeric ids', async () => {
    const ret = await seedReturn(app, account);
    const graph = await gqlReturn(ret.id);
    expect(Number(graph.numericId)).toBe(ret.numericId);
    expect(Number(graph.order.numericId)).toBe(ret.orderNumericId);

    // Compatibility flag -> v2.2 and GraphQL read flagged.
    expect((await compat(app, account.compatKey, 'POST', `/api/v1/warehouse/return/${ret.numericId}/flag`)).body).toBe(true);
    expect(await v2Status(ret.id)).toBe('flagged');
    expect((await gqlReturn(ret.id)).status).toBe('flagged');

    // v2.2 reopens -> the compatibility API reads open.
    const put = await app.request(`/v2.2/returns/${ret.id}/status`, { method: 'PUT', token: account.apiSecret, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ status: 'open' }) });
    expect(put.status).toBe(204);
    expect(await loopState(ret.numericId)).toBe('open');

    // GraphQL moves it into review -> the compatibility API refuses to process it.
    const review = await app.graphql(`mutation($id: ID!) { updateReturnStatus(returnId: $id, status: needs_review) { status } }`, { id: ret.id }, account.apiSecret);
    expect(review.errors).toBeUndefined();
    const refused = await compat(app, account.compatKey, 'POST', `/api/v1/warehouse/return/${ret.numericId}/process`);
    expect(refused.body).toEqual({ errors: { message: 'Return is review and therefore cannot be processed.', code: 'UNPROCESSABLE_FLAGGED_RETURN' } });

    // The compatibility close -> rejected everywhere; a note is a v2.2 comment and shows in GraphQL.
    expect((await compat(app, account.compatKey, 'POST', `/api/v1/warehouse/return/${ret.numericId}/close`)).body).toBe(true);
    expect(await v2Status(ret.id)).toBe('rejected');
    await compat(app, account.compatKey, 'POST', `/api/v1/warehouse/return/${ret.numericId}/note`, { content: 'Left at the dock' });
    const comments = await app.graphql<any>(`query($id: ID!) { return(id: $id) { comments { message numericId } notes { message } } }`, { id: ret.id }, account.apiSecret);
    expect(comments.data.return.comments).toEqual([{ message: 'Left at the dock', numericId: expect.any(String) }]);
    expect(comments.data.return.notes).toEqual([{ message: 'Left at the dock' }]);
  });

  it('GraphQL finds returns the way the compatibility API does (lookupReturn, returnsWindow)', async () => {
    const ret = await seedReturn(app, account);
    const found = await app.graphql<any>(
      `query($s: ID!, $n: ID!) { lookupReturn(storeId: $s, by: {numericId: $n}) { id } }`,
      { s: account.storeId, n: String(ret.numericId) },
      account.apiSecret,
    );
    expect(found.data.lookupReturn.id).toBe(ret.id);
    const window = await app.graphql<any>(
      `query($s: ID!, $w: ReturnWindowInput!) { returnsWindow(storeId: $s, window: $w, first: 500) { nodes { id } pageInfo { hasNextPage hasPreviousPage } } }`,
      { s: account.storeId, w: { field: 'created_at', from: '2026-01-01T00:00:00Z', until: '2100-01-01T00:00:00Z', condition: { statuses: ['open'] } } },
      account.apiSecret,
    );
    expect(window.errors).toBeUndefined();
    expect(window.data.returnsWindow.nodes.map((n: { id: string }) => n.id)).toContain(ret.id);
    // Another account's secret finds nothing in this store.
    const other = await app.createAccount('Other');
    const foreign = await app.graphql<any>(`query($s: ID!, $n: ID!) { lookupReturn(storeId: $s, by: {numericId: $n}) { id } }`, { s: account.storeId, n: String(ret.numericId) }, other.apiSecret);
    expect(foreign.data?.lookupReturn ?? null).toBeNull();
  });
});

describe('a compatibility process is the v2.2 completion', () => {
  type Event = { type: string; version: number; subjectType: string; data: { return: { status: string; items: unknown[] }; previousStatus: string; destinationLocationId: string | null; items: unknown[] } };

  const lastEvent = async (returnId: string): Promise<Event> => {
    const rows = await query<{ data: Event }>(app.databaseUrl, `select data from ${OUTBOX_EVENTS} where data->>'subjectId' = $1 order by sequence desc limit 1`, [returnId]);
    return rows[0]!.data;
  };
  const restocked = (returnId: string) => consumedEvents(app.databaseUrl, 'inventory-restock', `e.subject_id = $2 and e.data->'return'->>'status' = 'complete'`, [returnId]);
  const stock = async () => {
    const res = await app.request(`/v2.2/stores/${account.storeId}/inventory-items?kind=RETURN&location_id=${locationId}`, { token: account.apiSecret });
    return ((await res.json()) as { inventory_items: { sku: string; quantity: number }[] }).inventory_items.find((i) => i.sku === 'SKU-1')?.quantity ?? 0;
  };

  /** The `updated` webhook a subscriber received when the return completed. */
  const completionWebhook = (returnId: string) =>
    eventually(async () => {
      const bodies = receiver.received.map((r) => JSON.parse(r.body) as { type: string; return: { id: string; status: string } });
      return bodies.find((b) => b.type === 'updated' && b.return.id === returnId && b.return.status === 'complete');
    }, `the completion webhook of ${returnId}`);

  it('publishes the same return.updated event, delivers the same webhook and restocks the same units', async () => {
    const viaV2 = await seedReturn(app, account);
    const viaCompat = await seedReturn(app, account);
    const before = await stock();

    const put = await app.request(`/v2.2/returns/${viaV2.id}/status`, { method: 'PUT', token: account.apiSecret, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ status: 'complete' }) });
    expect(put.status).toBe(204);
    await restocked(viaV2.id);
    const afterV2 = await stock();
    expect(afterV2 - before).toBe(1);

    expect((await compat(app, account.compatKey, 'POST', `/api/v1/warehouse/return/${viaCompat.numericId}/process`)).body).toBe(true);
    await eventually(async () => ((await statusOf(app, viaCompat.id)) === 'complete' ? true : undefined), 'completion');
    await restocked(viaCompat.id);
    expect((await stock()) - afterV2).toBe(1);

    const [a, b] = [await lastEvent(viaV2.id), await lastEvent(viaCompat.id)];
    const shape = (e: Event) => ({
      type: e.type,
      version: e.version,
      subjectType: e.subjectType,
      status: e.data.return.status,
      previousStatus: e.data.previousStatus,
      destinationLocationId: e.data.destinationLocationId,
      keys: Object.keys(e.data).sort(),
      returnKeys: Object.keys(e.data.return).sort(),
      items: e.data.items.length,
    });
    expect(shape(b)).toEqual(shape(a));
    expect(shape(b)).toMatchObject({ type: 'return.updated', status: 'complete', previousStatus: 'open', destinationLocationId: locationId });

    // The subscriber sees both completions as the same webhook: same type, same document shape.
    const [hookA, hookB] = [await completionWebhook(viaV2.id), await completionWebhook(viaCompat.id)];
    const hookShape = (h: Record<string, any>) => ({ type: h.type, keys: Object.keys(h).sort(), returnKeys: Object.keys(h.return).sort(), status: h.return.status, items: h.return.items.length });
    expect(hookShape(hookB)).toEqual(hookShape(hookA));
  });
});
