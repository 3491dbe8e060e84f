import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { query } from './support/database.js';
import { accept, drained } from './support/events.js';
import { eventually } from './support/eventually.js';
import { countsOf, erasureCompleted, requestErasure } from './support/privacy.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';

/**
 * Segment conditions over return history (decisions section 22): `returns` (how many, how
 * recently, which statuses and reasons) and `returnRate` (units returned / units ordered), kept by
 * the events subgraph from the returns subgraph's outbox events and matched to customers by their
 * orders' email or phone, in members, counts, and returnStats' segment filter.
 */

const MEMBERS = `query($s: ID!, $d: SegmentDefinitionInput!) { segmentMembers(storeId: $s, definition: $d, first: 50) { totalCount edges { node { email } } } }`;

describe('segments over return history', () => {
  const app = useTestApp();
  const store = useTestAccount(app, 'Serial returners');
  const other = useTestAccount(app, 'Other store');
  const returnIds: Record<string, string[]> = { ann: [], bob: [] };

  async function members(definition: unknown): Promise<string[]> {
    const res = await app.graphql<{ segmentMembers: { totalCount: number; edges: { node: { email: string } }[] } }>(MEMBERS, { s: store.storeId, d: definition }, store.apiSecret);
    expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
    const names = res.data!.segmentMembers.edges.map((e) => e.node.email.split('@')[0]!).sort();
    expect(res.data!.segmentMembers.totalCount).toBe(names.length);
    return names;
  }

  async function order(id: string, customer: Record<string, unknown>, quantity: number, account = store): Promise<void> {
    const pushed = await pushOrder(app, account, orderBody({ id, customer: { firstName: 'C', ...customer }, createdAt: new Date(Date.now() - 30 * 86_400_000).toISOString() }, [{ id: 'l1', quantity, price: '10.00', sku: 'S' }]));
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
  }

  async function giveBack(orderId: string, quantity: number, reason: string, account = store): Promise<string> {
    const res = await postReturn(app, account, returnBody(orderId, [{ lineItemId: 'l1', quantity, reason }]));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.return.id as string;
  }

  beforeAll(async () => {
    for (const [email, extra] of [
      ['ann@example.com', {}],
      ['bob@example.com', { phoneNumber: '+15550004444' }],
      ['cid@example.com', {}],
    ] as const) {
      await accept(app, store, { eventName: 'Joined', customer: { email, ...extra } });
    }
    await drained(app.databaseUrl);
    // Ann: two orders of 5 units (her email in another case), three returns of 4 units in all: a rate of 0.4.
    await order('ann-1', { email: 'ANN@Example.com' }, 5);
    await order('ann-2', { email: 'ann@example.com' }, 5);
    returnIds.ann!.push(await giveBack('ann-1', 1, 'too big'), await giveBack('ann-1', 2, 'damaged'), await giveBack('ann-2', 1, 'too big'));
    // Bob, known to the orders by his phone only: one order of 2 units, all returned.
    await order('bob-1', { email: 'robert@elsewhere.example', phoneNumber: '+15550004444' }, 2);
    returnIds.bob!.push(await giveBack('bob-1', 2, 'damaged'));
    // Cid: an order, no return. The other store's Ann returns everything: never counted here.
    await order('cid-1', { email: 'cid@example.com' }, 3);
    await order('x-1', { email: 'ann@example.com' }, 1, other);
    await giveBack('x-1', 1, 'too big', other);
    await eventually(async () => {
      const [row] = await query<{ returns: number; orders: number }>(
        app.databaseUrl,
        `select (select count(*) from events.customer_return where store_id = $1)::int as returns, (select count(*) from events.customer_order where store_id = $1)::int as orders`,
        [store.storeId],
      );
      return row!.returns === 4 && row!.orders === 4;
    }, 'the returns and orders to reach the segments');
  });

  it('counts returns by number, recency, status and reason, matching by email (any case) or phone', async () => {
    expect(await members({ all: [{ returns: { minCount: 3 } }] })).toEqual(['ann']);
    expect(await members({ all: [{ returns: { minCount: 1, withinLastDays: 90 } }] })).toEqual(['ann', 'bob']);
    expect(await members({ all: [{ returns: { reason: ['damaged'] } }] })).toEqual(['ann', 'bob']);
    expect(await members({ all: [{ returns: { minCount: 2, reason: ['too big'] } }] })).toEqual(['ann']);
    // minCount 0 is everyone; "no return" is a maxCount the events have, expressed here with any/all of profile conditions.
    expect(await members({ all: [{ returns: { minCount: 0 } }] })).toEqual(['ann', 'bob', 'cid']);
  });

  it('follows status changes: a return rejected leaves the rate, and is found by its status', async () => {
    expect(await members({ all: [{ returnRate: { greaterThan: 0.39 } }] })).toEqual(['ann', 'bob']);
    // Exactly 0.4 is not above 0.4.
    expect(await members({ all: [{ returnRate: { greaterThan: 0.4 } }] })).toEqual(['bob']);
    const rejected = await app.graphql(`mutation($id: ID!) { updateReturnStatus(returnId: $id, status: rejected) { id } }`, { id: returnIds.bob![0] }, store.apiSecret);
    expect(rejected.errors).toBeUndefined();
    await eventually(async () => {
      const [row] = await query<{ status: string }>(app.databaseUrl, 'select status from events.customer_return where return_id = $1', [returnIds.bob![0]]);
      return row!.status === 'rejected';
    }, 'the rejection to reach the segments');
    expect(await members({ all: [{ returnRate: { greaterThan: 0.4 } }] })).toEqual([]);
    expect(await members({ all: [{ returns: { status: ['rejected'] } }] })).toEqual(['bob']);
    // An open return (no discount while one is open): any status but the final ones.
    expect(await members({ any: [{ returns: { status: ['pre_shipment', 'open', 'in_transit', 'delivered', 'needs_review', 'in_review', 'flagged'] } }] })).toEqual(['ann']);
  });

  it('filters returnStats by a return-history segment', async () => {
    const res = await app.graphql<{ returnStats: { totals: { returns: number; items: number; returnRate: number | null } } }>(
      `query($s: ID!, $f: ReturnStatsFilterInput) { returnStats(storeId: $s, window: {from: "2020-01-01T00:00:00Z", until: "2030-01-01T00:00:00Z", interval: MONTH}, filter: $f) { totals { returns items returnRate } } }`,
      { s: store.storeId, f: { segment: { all: [{ returns: { minCount: 3 } }] } } },
      store.apiSecret,
    );
    expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
    expect(res.data!.returnStats.totals).toEqual({ returns: 3, items: 4, returnRate: 0.4 });
  });

  it('refuses bad return conditions naming them', async () => {
    const res = await app.graphql(MEMBERS, { s: store.storeId, d: { all: [{ returns: { minCount: -1, status: ['lost'] } }, { returnRate: { greaterThan: -2 } }, { returns: {}, returnRate: { greaterThan: 1 } }] } }, store.apiSecret);
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const pointers = (res.errors![0]!.extensions!.errors as { pointer: string }[]).map((e) => e.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/definition/all/0/returns/minCount', '/definition/all/0/returns/status', '/definition/all/1/returnRate/greaterThan', '/definition/all/2']));
  });

  it('an erasure takes the person out of the segments\' copy of returns and orders', async () => {
    const id = await requestErasure(app, store, { email: 'ann@example.com' });
    const erasure = await erasureCompleted(app, store, id);
    expect(countsOf(erasure)['customer_return/REMOVED']).toBe(3);
    const left = await query<{ n: number }>(app.databaseUrl, `select count(*)::int as n from events.customer_return where store_id = $1 and email = 'ann@example.com'`, [store.storeId]);
    expect(left[0]!.n).toBe(0);
    const theirs = await query<{ n: number }>(app.databaseUrl, `select count(*)::int as n from events.customer_return where store_id = $1`, [other.storeId]);
    expect(theirs[0]!.n).toBe(1);
  });
});
