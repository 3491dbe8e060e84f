import { beforeAll, describe, expect, it } from 'vitest';
import { eventsSubgraph } from '../subgraphs/events/index.js';
import { backfillCustomerReturns } from '../subgraphs/events/segments/customer-returns-backfill.job.js';
import { useTestAccount, useTestApp } from './support/app.js';
import { query } from './support/database.js';
import { accept, drained } from './support/events.js';
import { eventually } from './support/eventually.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';

/**
 * The backfill of the segments' copy of returns and orders (customer-returns-backfill.job.ts): the
 * returns and orders a deployment had before the `customer-returns` consumer started are copied
 * once, whatever the consumer does meanwhile, and a second run changes nothing.
 */

const MEMBERS = `query($s: ID!, $d: SegmentDefinitionInput!) { segmentMembers(storeId: $s, definition: $d, first: 50) { totalCount edges { node { email } } } }`;

interface CopyRow {
  id: string;
  email: string | null;
  phone: string | null;
  status?: string;
  reasons?: string[];
  units: number;
  created_at: string;
  sequence: string;
}

describe('backfill of the segments\' copy of returns and orders', () => {
  const app = useTestApp();
  const store = useTestAccount(app, 'Upgraded store');
  const returnIds: string[] = [];

  const events = () => app.service.runtime.servicesOf(eventsSubgraph)!.deps;
  const backfill = (options?: { page?: number; forMs?: number }) => backfillCustomerReturns(events().orm, events().accounts, events().contributions, options);

  const copies = async () => ({
    returns: await query<CopyRow>(
      app.databaseUrl,
      `select return_id as id, email, phone, status, reasons, units, created_at::text, sequence::text from events.customer_return where store_id = $1 order by return_id`,
      [store.storeId],
    ),
    orders: await query<CopyRow>(app.databaseUrl, `select order_id as id, email, phone, units, created_at::text, sequence::text from events.customer_order where store_id = $1 order by order_id`, [store.storeId]),
  });

  /** The store's returns and orders as the returns subgraph holds them now, in the copy's terms (sequence aside). */
  const current = async () => ({
    returns: await query<Omit<CopyRow, 'sequence'>>(
      app.databaseUrl,
      `select r.id, lower(o.customer_email) as email, o.customer_phone as phone, r.status,
              array(select distinct i.reason from returns.return_item i where i.return_id = r.id and i.status = 'active' order by 1) as reasons,
              (select coalesce(sum(i.quantity), 0) from returns.return_item i where i.return_id = r.id and i.status = 'active')::int as units,
              date_trunc('milliseconds', r.created_at)::text as created_at
         from returns.return r join returns."order" o on o.id = r.order_id where r.store_id = $1 order by r.id`,
      [store.storeId],
    ),
    orders: await query<Omit<CopyRow, 'sequence'>>(
      app.databaseUrl,
      `select o.id, lower(o.customer_email) as email, o.customer_phone as phone, (select coalesce(sum(l.quantity), 0) from returns.order_line_item l where l.order_id = o.id and l.removed_at is null)::int as units,
              date_trunc('milliseconds', o.created_at)::text as created_at
         from returns."order" o where o.store_id = $1 and o.imported_at is null order by o.id`,
      [store.storeId],
    ),
  });

  /** The copy without its sequences, reasons sorted: what a segment condition reads. */
  const copyAsState = async () => {
    const c = await copies();
    return {
      returns: c.returns.map(({ sequence: _s, ...r }) => ({ ...r, reasons: [...r.reasons!].sort() })),
      orders: c.orders.map(({ sequence: _s, ...o }) => o),
    };
  };

  async function members(definition: unknown): Promise<string[]> {
    const res = await app.graphql<{ segmentMembers: { totalCount: number; edges: { node: { email: string } }[] } }>(MEMBERS, { s: store.storeId, d: definition }, store.apiSecret);
    expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
    return res.data!.segmentMembers.edges.map((e) => e.node.email.split('@')[0]!).sort();
  }

  async function order(id: string, email: string, quantity: number): Promise<void> {
    const pushed = await pushOrder(app, store, orderBody({ id, customer: { firstName: 'C', email }, createdAt: new Date(Date.now() - 10 * 86_400_000).toISOString() }, [{ id: 'l1', quantity, price: '10.00', sku: 'S' }]));
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
  }

  async function giveBack(orderId: string, quantity: number, reason: string): Promise<string> {
    const res = await postReturn(app, store, returnBody(orderId, [{ lineItemId: 'l1', quantity, reason }]));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.return.id as string;
  }

  const setStatus = async (id: string, status: string) => {
    const res = await app.graphql(`mutation($id: ID!, $s: ReturnStatus!) { updateReturnStatus(returnId: $id, status: $s) { id } }`, { id, s: status }, store.apiSecret);
    expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
  };

  /** What an existing deployment has before the upgrade: no copy of the store's rows, and a backfill not run. */
  async function forgetCopies(): Promise<void> {
    await query(app.databaseUrl, 'delete from events.customer_return where store_id = $1', [store.storeId]);
    await query(app.databaseUrl, 'delete from events.customer_order where store_id = $1', [store.storeId]);
    await query(app.databaseUrl, 'update events.customer_returns_backfill set store_id = null, kind = null, after_id = null, finished_at = null');
  }

  const consumerCaughtUp = async () => {
    const [now, copy] = [await current(), await copyAsState()];
    return JSON.stringify(now) === JSON.stringify(copy) ? copy : undefined;
  };

  beforeAll(async () => {
    for (const email of ['ann@example.com', 'bob@example.com', 'cid@example.com']) await accept(app, store, { eventName: 'Joined', customer: { email } });
    await drained(app.databaseUrl);
    await order('ann-1', 'Ann@Example.com', 5);
    await order('ann-2', 'ann@example.com', 5);
    await order('bob-1', 'bob@example.com', 2);
    await order('cid-1', 'cid@example.com', 3);
    returnIds.push(await giveBack('ann-1', 1, 'too big'), await giveBack('ann-1', 2, 'damaged'), await giveBack('ann-2', 1, 'too big'), await giveBack('bob-1', 2, 'damaged'));
    // The backfill the start queued has run (over a database without this store's rows), and the consumer has copied everything.
    await eventually(async () => (await query<{ done: boolean }>(app.databaseUrl, 'select finished_at is not null as done from events.customer_returns_backfill'))[0]!.done, 'the backfill at start to finish');
    await eventually(consumerCaughtUp, 'the consumer to copy the returns and orders');
  });

  it('copies the returns and orders the consumer never saw, and the segments count them', async () => {
    const before = await copyAsState();
    expect(before.returns).toHaveLength(4);
    expect(before.orders).toHaveLength(4);
    await forgetCopies();
    expect(await members({ all: [{ returns: { minCount: 1 } }] })).toEqual([]);

    // One page of one subject per transaction, one page per run: a run resumes where the one before stopped.
    let runs = 0;
    while (!(await backfill({ page: 1, forMs: -1 }))) runs++;
    expect(runs).toBeGreaterThanOrEqual(7);
    expect(await copyAsState()).toEqual(before);
    expect(await current()).toEqual(before);
    // Written below every event's sequence: the consumer's next event of each replaces it.
    expect(new Set((await copies()).returns.map((r) => r.sequence))).toEqual(new Set(['0']));

    expect(await members({ all: [{ returns: { minCount: 3 } }] })).toEqual(['ann']);
    expect(await members({ all: [{ returns: { reason: ['damaged'] } }] })).toEqual(['ann', 'bob']);
    expect(await members({ all: [{ returnRate: { greaterThan: 0.39 } }] })).toEqual(['ann', 'bob']);
    expect(await members({ all: [{ returnRate: { greaterThan: 0.4 } }] })).toEqual(['bob']);
  });

  it('a second run changes nothing, whether finished or started again', async () => {
    const copied = await copies();
    expect(await backfill()).toBe(true);
    expect(await copies()).toEqual(copied);
    await query(app.databaseUrl, 'update events.customer_returns_backfill set store_id = null, kind = null, after_id = null, finished_at = null');
    expect(await backfill({ page: 2 })).toBe(true);
    expect(await copies()).toEqual(copied);
  });

  it('ends at the current state when returns and orders change while it runs', async () => {
    await forgetCopies();
    // Orders and returns that will change or go while the backfill copies them one at a time.
    await order('dan-1', 'dan@example.com', 4);
    await order('eve-1', 'eve@example.com', 1);
    const dans = await giveBack('dan-1', 1, 'too small');
    const running = (async () => {
      let runs = 0;
      while (!(await backfill({ page: 1, forMs: -1 }))) runs++;
      return runs;
    })();
    const changing = (async () => {
      await setStatus(returnIds[0]!, 'rejected');
      const gone = await app.graphql(`mutation($s: ID!, $o: String!) { deleteOrder(storeId: $s, order: $o) { orderId } }`, { s: store.storeId, o: 'eve-1' }, store.apiSecret);
      expect(gone.errors, JSON.stringify(gone.errors)).toBeUndefined();
      await setStatus(dans, 'complete');
      await order('fay-1', 'fay@example.com', 2);
      returnIds.push(await giveBack('fay-1', 2, 'damaged'));
      await setStatus(returnIds[3]!, 'in_transit');
    })();
    const [runs] = await Promise.all([running, changing]);
    expect(runs).toBeGreaterThan(0);
    const settled = await eventually(consumerCaughtUp, 'the copy to reach the current state');
    expect(settled.orders.map((o) => o.email)).not.toContain('eve@example.com');
    expect(settled.returns.find((r) => r.id === returnIds[0])!.status).toBe('rejected');
    expect(settled.returns.find((r) => r.id === dans)!.status).toBe('complete');
    // A return's status change is an event of its customer (flows follow return outcomes): once processed,
    // dan and fay, who had no profile, are customers, each with a return.
    await drained(app.databaseUrl);
    expect(await members({ all: [{ returns: { status: ['rejected'] } }] })).toEqual(['ann']);
    expect(await members({ all: [{ returns: { minCount: 1 } }] })).toEqual(['ann', 'bob', 'dan', 'fay']);
  });
});
