import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { query } from './support/database.js';
import { accept } from './support/events.js';
import { eventually } from './support/eventually.js';
import { createFlow, createTemplate } from './support/flows.js';
import { erasureCompleted, requestErasure } from './support/privacy.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';

/**
 * Customer.timeline (decisions section 22): the customer's events, their returns' status changes
 * (the Return entity, fetched from the returns subgraph by the gateway) and the messages sent to
 * them, newest first in one Relay connection, through the gateway.
 */

const TIMELINE = `query($s: ID!, $email: String!, $first: Int, $after: String, $since: DateTime) {
  customer(storeId: $s, email: $email) {
    timeline(first: $first, after: $after, since: $since) {
      totalCount
      edges { cursor node { id at kind status previousStatus event { eventName } return { id status order { name } } message { channel subject } } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

interface Entry {
  id: string;
  at: string;
  kind: string;
  status: string | null;
  previousStatus: string | null;
  event: { eventName: string } | null;
  return: { id: string; status: string; order: { name: string } } | null;
  message: { channel: string; subject: string | null } | null;
}
interface Timeline {
  customer: { timeline: { totalCount: number; edges: { cursor: string | null; node: Entry }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } } | null;
}

describe('customer timeline', () => {
  const app = useTestApp();
  const store = useTestAccount(app, 'Timeline');
  const other = useTestAccount(app, 'Timeline elsewhere');
  let returnId = '';

  const timeline = async (variables: Record<string, unknown>, token = store.apiSecret) => {
    const res = await app.graphql<Timeline>(TIMELINE, { s: store.storeId, email: 'tia@example.com', ...variables }, token);
    return res;
  };

  beforeAll(async () => {
    const template = await createTemplate(app, store, { name: 'Thanks', channel: 'EMAIL', subject: 'Thanks {{ customer.firstName }}', body: 'Order {{ event.data.orderNumber }}' });
    await createFlow(app, store, { name: 'Thanks', trigger: { eventName: 'Ordered' }, steps: [{ sendEmail: { templateId: template, kind: 'transactional' } }] });
    await accept(app, store, { eventName: 'Viewed', customer: { email: 'tia@example.com', firstName: 'Tia' }, eventTimestamp: '2026-11-01T10:00:00Z', data: { page: 'lamp' } });
    await accept(app, store, { eventName: 'Ordered', customer: { email: 'tia@example.com' }, data: { orderNumber: 'T-1' } });
    const order = orderBody({ id: 'tia-1', customer: { email: 'tia@example.com', firstName: 'Tia' } }, [{ id: 'l1', quantity: 2, price: '30.00', sku: 'LAMP' }]);
    expect((await pushOrder(app, store, order)).status).toBe(200);
    const created = await postReturn(app, store, returnBody('tia-1', [{ lineItemId: 'l1', quantity: 1, reason: 'broken' }]));
    expect(created.status).toBe(201);
    returnId = created.body.return.id;
    const rejected = await app.graphql(`mutation($id: ID!) { updateReturnStatus(returnId: $id, status: rejected) { id } }`, { id: returnId }, store.apiSecret);
    expect(rejected.errors).toBeUndefined();
    await eventually(async () => {
      const [row] = await query<{ events: number; messages: number }>(
        app.databaseUrl,
        `select (select count(*) from events.custom_event where store_id = $1)::int as events, (select count(*) from events.message where store_id = $1)::int as messages`,
        [store.storeId],
      );
      return row!.events === 4 && row!.messages === 1;
    }, 'the events, the return changes and the message');
  });

  it('merges events, return status changes (with the return from the returns subgraph) and messages, newest first', async () => {
    const res = await timeline({ first: 10 });
    expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
    const { edges, totalCount } = res.data!.customer!.timeline;
    expect(totalCount).toBe(5);
    const nodes = edges.map((e) => e.node);
    const times = nodes.map((n) => Date.parse(n.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(nodes.map((n) => n.kind).sort()).toEqual(['EVENT', 'EVENT', 'MESSAGE', 'RETURN_STATUS_CHANGE', 'RETURN_STATUS_CHANGE']);
    // The oldest: the view of 1 November.
    expect(nodes.at(-1)).toMatchObject({ kind: 'EVENT', event: { eventName: 'Viewed' }, return: null, message: null });
    const changes = nodes.filter((n) => n.kind === 'RETURN_STATUS_CHANGE');
    expect(changes.map((c) => [c.previousStatus, c.status])).toEqual([
      [changes[1]!.status, 'rejected'],
      [null, changes[1]!.status],
    ]);
    // The return itself, as it is now, from its own subgraph.
    for (const change of changes) expect(change.return).toEqual({ id: returnId, status: 'rejected', order: { name: expect.any(String) } });
    expect(nodes.find((n) => n.kind === 'MESSAGE')!.message).toEqual({ channel: 'EMAIL', subject: 'Thanks Tia' });
  });

  it('pages with cursors and bounds by time', async () => {
    const first = await timeline({ first: 2 });
    const page1 = first.data!.customer!.timeline;
    expect(page1.edges).toHaveLength(2);
    expect(page1.pageInfo.hasNextPage).toBe(true);
    const rest = await timeline({ first: 10, after: page1.pageInfo.endCursor });
    const page2 = rest.data!.customer!.timeline;
    expect(page2.edges).toHaveLength(3);
    expect(page2.pageInfo.hasNextPage).toBe(false);
    const all = (await timeline({ first: 10 })).data!.customer!.timeline.edges.map((e) => e.node.id);
    expect([...page1.edges, ...page2.edges].map((e) => e.node.id)).toEqual(all);
    // Since 2 November: the view of 1 November is left out.
    const recent = await timeline({ first: 10, since: '2026-11-02T00:00:00Z' });
    expect(recent.data!.customer!.timeline.totalCount).toBe(4);
    // A page too large is refused (by the query's cost before the page size).
    expect((await timeline({ first: 1000 })).errors?.[0]?.extensions?.code).toMatch(/^(BAD_USER_INPUT|QUERY_TOO_COMPLEX)$/);
  });

  it('belongs to its store, and an erased customer has none', async () => {
    const hidden = await timeline({ first: 5 }, other.apiSecret);
    expect(hidden.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const id = await requestErasure(app, store, { email: 'tia@example.com' });
    await erasureCompleted(app, store, id);
    const after = await timeline({ first: 5 });
    expect(after.errors).toBeUndefined();
    expect(after.data!.customer).toBeNull();
  });
});
