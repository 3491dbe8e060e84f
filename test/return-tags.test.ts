import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql } from './inventory-fixtures.js';
import { useTestAccount, useTestApp } from './support/app.js';
import { eventually } from './support/eventually.js';
import { v22 } from './support/orders.js';
import { startReceiver, type Receiver } from './support/receiver.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';
import { createWebhook } from './support/webhooks.js';

/** Return tags: a store's tags, the tags its returns carry, and what a rename or a delete does to them. */
describe('return tags', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Tags');
  const other = useTestAccount(app, 'Other tags');
  let receiver: Receiver;
  const returnIds: string[] = [];

  const put = (name: string, body: unknown, account = acme) => v22(app, account, 'PUT', `/stores/${account.storeId}/return-tags/${encodeURIComponent(name)}`, body);
  const list = (account = acme) => v22(app, account, 'GET', `/stores/${account.storeId}/return-tags`);
  const setTags = (returnId: string, tags: string[]) => gql<{ setReturnTags: { tags: { name: string }[] } }>(app, 'mutation($id: ID!, $tags: [String!]!) { setReturnTags(returnId: $id, tags: $tags) { tags { name } } }', { id: returnId, tags }, acme.apiSecret);
  const tagged = async (tag: string) =>
    (await gql<{ returns: { edges: { node: { id: string } }[] } }>(app, 'query($s: ID!, $f: ReturnFilterInput) { returns(storeId: $s, first: 50, filter: $f) { edges { node { id } } } }', { s: acme.storeId, f: { tag } }, acme.apiSecret)).returns.edges.map((e) => e.node.id).sort();

  beforeAll(async () => {
    receiver = await startReceiver();
    const order = orderBody({}, [{ id: 'l1', quantity: 10, price: '10.00' }]);
    await pushOrder(app, acme, order);
    for (let i = 0; i < 3; i++) returnIds.push((await postReturn(app, acme, returnBody(order.id as string, [{ lineItemId: 'l1', quantity: 1, reason: 'r' }]))).body.return.id);
  });
  afterAll(() => receiver.close());

  it('tags returns by name (unknown names become NORMAL merchant tags), and filters the list by tag', async () => {
    expect((await setTags(returnIds[0]!, ['Damaged', 'VIP'])).setReturnTags.tags.map((t) => t.name)).toEqual(['Damaged', 'VIP']);
    await setTags(returnIds[1]!, ['Damaged']);
    expect((await list()).body.tags).toEqual([
      { name: 'Damaged', kind: 'return', pillTheme: 'NORMAL', source: 'merchant', numericId: expect.any(Number) },
      { name: 'VIP', kind: 'return', pillTheme: 'NORMAL', source: 'merchant', numericId: expect.any(Number) },
    ]);
    expect(await tagged('Damaged')).toEqual([returnIds[0], returnIds[1]].sort());
    expect(await tagged('damaged')).toEqual([]);
    const read = await v22(app, acme, 'GET', `/returns/${returnIds[0]}`);
    expect(read.body.return.tags).toEqual([
      { name: 'Damaged', source: 'merchant' },
      { name: 'VIP', source: 'merchant' },
    ]);
    // Tags are the store's own.
    expect((await list(other)).body.tags).toEqual([]);
    expect((await put('Damaged', { pillTheme: 'SUCCESS' }, other)).body.tag.pillTheme).toBe('SUCCESS');
    expect((await list()).body.tags[0].pillTheme).toBe('NORMAL');
  });

  it('a rename shows on every return carrying the tag, each publishing return.updated; a delete strips it the same way', async () => {
    const hook = await createWebhook(app, acme, { callback: { url: receiver.url, auth: null }, topic: 'return' });
    expect(hook.status).toBe(201);
    const renamed = await put('Damaged', { pillTheme: 'DANGER', newName: 'Damaged in transit' });
    expect(renamed.body.tag).toMatchObject({ name: 'Damaged in transit', pillTheme: 'DANGER' });
    expect(await tagged('Damaged in transit')).toEqual([returnIds[0], returnIds[1]].sort());
    expect(await tagged('Damaged')).toEqual([]);
    const updates = await eventually(async () => {
      const bodies = receiver.received.map((r) => JSON.parse(r.body) as { type: string; return: { id: string; tags: { name: string }[] } });
      const renames = bodies.filter((b) => b.type === 'updated' && b.return.tags.some((t) => t.name === 'Damaged in transit'));
      return renames.length >= 2 ? renames : undefined;
    }, 'the renamed returns delivered');
    expect(updates.map((b) => b.return.id).sort()).toEqual([returnIds[0], returnIds[1]].sort());

    expect((await v22(app, acme, 'DELETE', `/stores/${acme.storeId}/return-tags/${encodeURIComponent('Damaged in transit')}`)).body).toEqual({ success: true });
    expect((await v22(app, acme, 'GET', `/returns/${returnIds[0]}`)).body.return.tags).toEqual([{ name: 'VIP', source: 'merchant' }]);
    await eventually(async () => receiver.received.some((r) => {
      const b = JSON.parse(r.body) as { return: { id: string; tags: unknown[] } };
      return b.return.id === returnIds[1] && b.return.tags.length === 0;
    }), 'the stripped return delivered');
    expect((await v22(app, acme, 'DELETE', `/stores/${acme.storeId}/return-tags/Nothing`)).status).toBe(404);
  });

  it('refuses a rename from a tag that does not exist or onto a name in use, and every invalid input with its pointer, changing nothing', async () => {
    await put('A', { pillTheme: 'NORMAL' });
    await put('B', { pillTheme: 'NORMAL' });
    const missing = await put('Ghost', { pillTheme: 'NORMAL', newName: 'C' });
    expect(missing.status).toBe(400);
    expect(missing.body.type).toBe('/problems/rename-precondition-failed');
    const taken = await put('A', { pillTheme: 'NORMAL', newName: 'B' });
    expect(taken.body.type).toBe('/problems/rename-precondition-failed');
    const invalid = await put('A', { pillTheme: 'PINK', colour: 'red' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/colour', '/pillTheme']);
    const long = await put('x'.repeat(101), { pillTheme: 'NORMAL' });
    expect(long.status).toBe(400);
    expect(long.body.errors[0].pointer).toBe('/name');
    expect((await list()).body.tags.map((t: { name: string }) => t.name)).toEqual(['A', 'B', 'VIP']);
    // The same name as the path is no rename: it recolours.
    expect((await put('A', { pillTheme: 'PRIMARY', newName: 'A' })).body.tag).toMatchObject({ name: 'A', pillTheme: 'PRIMARY' });
  });

  it('needs returns_read to list and returns_write to change', async () => {
    const reader = await app.service.runtime.accounts.createSecret(acme.accountId, ['returns_read']);
    expect((await list({ ...acme, apiSecret: reader.apiSecret })).status).toBe(200);
    expect((await put('Z', { pillTheme: 'NORMAL' }, { ...acme, apiSecret: reader.apiSecret })).status).toBe(403);
  });
});
