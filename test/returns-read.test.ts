import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { query } from './support/database.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';

describe('reading and listing returns', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Acme');
  const other = useTestAccount(app, 'Other');
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    await pushOrder(app, acme, orderBody({ id: 'L-1', name: '#7001' }, [{ id: 'a', quantity: 10, price: '2.00' }]));
    await pushOrder(app, acme, orderBody({ id: 'L-2', name: '#7002', customer: { email: 'bob@example.com' } }, [{ id: 'b', quantity: 10, price: '3.00' }]));
    const make = async (name: string, order: string, line: string, extra: Record<string, unknown> = {}) => {
      const res = await postReturn(app, acme, returnBody(order, [{ lineItemId: line, quantity: 1, reason: 'r' }], extra));
      ids[name] = res.body.return.id;
    };
    await make('first', 'L-1', 'a');
    await make('warranty', 'L-1', 'a', { type: 'warranty' });
    await make('bob', 'L-2', 'b');
    await make('done', 'L-2', 'b');
    await app.request(`/v2.2/returns/${ids.done}/status`, { method: 'PUT', token: acme.apiSecret, headers: { 'content-type': 'application/json' }, body: '{"status":"complete"}' });
    // Spread the timestamps so the date filters have something to cut.
    const at = { first: '2026-03-01T00:00:00Z', warranty: '2026-04-01T00:00:00Z', bob: '2026-05-01T00:00:00Z', done: '2026-06-01T00:00:00Z' };
    for (const [name, ts] of Object.entries(at)) {
      await query(app.databaseUrl, 'update returns.return set created_at = $2, updated_at = $2 where id = $1', [ids[name], ts]);
    }
  });

  const list = async (qs = '', account = acme) => {
    const res = await app.request(`/v2.2/stores/${account.storeId}/returns${qs}`, { token: account.apiSecret });
    return { status: res.status, body: await res.json() };
  };
  const names = (returns: { id: string }[]) => returns.map((r) => Object.entries(ids).find(([, id]) => id === r.id)?.[0]);

  it('GET /v2.2/returns/{id} answers {return, order}', async () => {
    const res = await app.request(`/v2.2/returns/${ids.bob}`, { token: acme.apiSecret });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(Object.keys(body).sort()).toEqual(['order', 'return']);
    expect(body.return.id).toBe(ids.bob);
    expect(body.return.order).toEqual({ id: body.order.id, name: '#7002' });
    expect(body.order).toMatchObject({ name: '#7002', externalId: 'L-2', customer: { emailAddress: 'bob@example.com' }, total: { currency: 'USD' } });
  });

  it("answers 404 for an absent return and for another account's", async () => {
    const absent = await app.request('/v2.2/returns/ret_nope', { token: acme.apiSecret });
    expect(absent.status).toBe(404);
    expect((await absent.json()).type).toBe('/problems/return-not-found');
    const foreign = await app.request(`/v2.2/returns/${ids.bob}`, { token: other.apiSecret });
    expect(foreign.status).toBe(404);
  });

  it('lists newest update first with the orders of the page', async () => {
    const { status, body } = await list();
    expect(status).toBe(200);
    expect(names(body.returns)).toEqual(['done', 'bob', 'warranty', 'first']);
    expect(body.orders.map((o: { name: string }) => o.name).sort()).toEqual(['#7001', '#7002']);
    expect(body.orders[0]).toHaveProperty('items');
  });

  it.each([
    ['?status=complete', ['done']],
    ['?status=open', ['bob', 'warranty', 'first']],
    ['?type=warranty', ['warranty']],
    ['?updated_at_min=2026-04-01T00:00:00Z', ['done', 'bob', 'warranty']],
    ['?updated_at_max=2026-04-01T00:00:00Z', ['first']],
    ['?created_at_min=2026-04-15&created_at_max=2026-06-01', ['bob']],
    ['?provider_order_name=%237001', ['warranty', 'first']],
    ['?shopify_order_name=%237002&status=open', ['bob']],
    ['?type=return&status=open&updated_at_min=2026-01-01', ['bob', 'first']],
    // The customer's email, any case (decisions 17).
    ['?email=BOB%40Example.com', ['done', 'bob']],
    ['?email=ada%40example.com&status=open', ['warranty', 'first']],
    ['?email=nobody%40example.com', []],
  ])('filters %s', async (qs, expected) => {
    const { status, body } = await list(qs);
    expect(status).toBe(200);
    expect(names(body.returns)).toEqual(expected);
  });

  it.each([
    ['?status=shipped', 'query#status'],
    ['?type=gift', 'query#type'],
    ['?updated_at_min=last-week', 'query#updated_at_min'],
    ['?created_at_max=2026-13-45', 'query#created_at_max'],
    ['?email=not-an-email', 'query#email'],
  ])('answers 400 for %s', async (qs, pointer) => {
    const { status, body } = await list(qs);
    expect(status).toBe(400);
    expect(body.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
  });

  it('ignores parameters it does not take, as the real platform does, and names them (decisions 17)', async () => {
    const res = await app.request(`/v2.2/stores/${acme.storeId}/returns?order_name=x&limit=10`, { token: acme.apiSecret });
    expect(res.status).toBe(200);
    expect(res.headers.get('ignored-parameters')).toBe('order_name, limit');
    expect(names((await res.json()).returns)).toEqual(['done', 'bob', 'warranty', 'first']);
  });

  it('binds cursors to filters', async () => {
    const res = await app.request(`/v2.2/stores/${acme.storeId}/returns?status=open&page-size=1`, { token: acme.apiSecret });
    const cursor = res.headers.get('x-page-next')!;
    const same = await list(`?status=open&page-size=1&page-continue=${encodeURIComponent(cursor)}`);
    expect(names(same.body.returns)).toEqual(['warranty']);
    const changed = await list(`?status=complete&page-size=1&page-continue=${encodeURIComponent(cursor)}`);
    expect(changed.status).toBe(400);
    expect(changed.body.type).toBe('/problems/invalid-cursor');
  });

  it('serves comments: POST 201 {comment}, GET {comments}, shown in notes', async () => {
    const post = await app.request(`/v2.2/returns/${ids.first}/comments`, {
      method: 'POST',
      token: acme.apiSecret,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ comment: { message: 'Label sent' } }),
    });
    expect(post.status).toBe(201);
    const { comment } = await post.json();
    expect(comment).toEqual({ id: expect.stringMatching(/^cmt_/), message: 'Label sent', createdAt: expect.any(String) });
    const get = await (await app.request(`/v2.2/returns/${ids.first}/comments`, { token: acme.apiSecret })).json();
    expect(get).toEqual({ comments: [comment] });
    const read = await (await app.request(`/v2.2/returns/${ids.first}`, { token: acme.apiSecret })).json();
    expect(read.return.notes).toEqual([{ message: 'Label sent' }]);
    const empty = await app.request(`/v2.2/returns/${ids.first}/comments`, { method: 'POST', token: acme.apiSecret, headers: { 'content-type': 'application/json' }, body: '{"comment":{"message":"  "}}' });
    expect(empty.status).toBe(400);
    const foreign = await app.request(`/v2.2/returns/${ids.first}/comments`, { token: other.apiSecret });
    expect(foreign.status).toBe(404);
  });

  it('serves dashboards through GraphQL: filtered connections, Order.returns, Customer-scoped lookups', async () => {
    const res = await app.graphql<any>(
      `query($s: ID!) {
        returns(storeId: $s, first: 10, filter: {status: "open", type: "return"}) { edges { node { id status order { name returns { edges { node { id } } } } } } pageInfo { hasNextPage } }
      }`,
      { s: acme.storeId },
      acme.apiSecret,
    );
    expect(res.errors).toBeUndefined();
    const nodes = res.data.returns.edges.map((e: any) => e.node);
    // The comment added above made `first` the most recently updated.
    expect(nodes.map((n: any) => n.id)).toEqual([ids.first, ids.bob]);
    expect(nodes[0].order.returns.edges.map((e: any) => e.node.id)).toEqual([ids.first, ids.warranty]);
    const foreign = await app.graphql(`{ returns(storeId: "${acme.storeId}") { edges { node { id } } } }`, {}, other.apiSecret);
    expect(foreign.errors?.[0]?.extensions?.problem).toBe('store-not-found');
    const byId = await app.graphql<any>(`{ return(id: "${ids.first}") { id } }`, {}, other.apiSecret);
    expect(byId.data).toEqual({ return: null });
  });
});
