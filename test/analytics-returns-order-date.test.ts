import { beforeAll, describe, expect, it } from 'vitest';
import { compactReturnStats } from '../subgraphs/returns/return-stats.service.js';
import { useTestAccount, useTestApp } from './support/app.js';
import { query } from './support/database.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';

/**
 * `returnStats(basis: ORDER_DATE)` read from the order-date rollup (return_order_stat, with the
 * contributions' ordered_at for the window's edges): the same answers as a hand computation over
 * the returns, their active items and their orders, after compaction, after returns move between
 * statuses and lose items, and after an order's creation time is corrected.
 */

const STATS = `query($s: ID!, $w: TimeWindowInput!, $by: ReturnDimension) {
  returnStats(storeId: $s, window: $w, basis: ORDER_DATE, by: $by) {
    totals { returns items }
    series { start measures { returns items } }
    groups { key measures { returns items } }
  }
}`;

// Edges that are not whole hours: the rollup for the hours inside, the rows for the clipped ones.
const WINDOW = { from: '2026-05-01T00:30:00Z', until: '2026-05-05T12:30:00Z', interval: 'DAY', timeZone: 'UTC' };

interface Answer {
  totals: { returns: number; items: number };
  series: { start: string; measures: { returns: number; items: number } }[];
  groups: { key: string; measures: { returns: number; items: number } }[];
}

describe('returnStats by order date from the rollup', () => {
  const app = useTestApp();
  const store = useTestAccount(app, 'Cohorts');
  const returnIds: string[] = [];

  const stats = async (by?: string): Promise<Answer> => {
    const res = await app.graphql<{ returnStats: Answer }>(STATS, { s: store.storeId, w: WINDOW, by }, store.apiSecret);
    expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
    return res.data!.returnStats;
  };

  /** The same question over the returns' own rows: each return at its order's creation time, its active items' units. */
  async function byHand(): Promise<{ totals: Answer['totals']; series: Answer['series']; reasons: Answer['groups'] }> {
    const rows = await query<{ day: string; returns: number; items: number }>(
      app.databaseUrl,
      `with placed as (
         select r.id, o.created_at as at, (select coalesce(sum(i.quantity), 0) from returns.return_item i where i.return_id = r.id and i.status = 'active')::int as items
           from returns.return r join returns."order" o on o.id = r.order_id
          where r.store_id = $1 and o.imported_at is null and o.created_at >= $2 and o.created_at < $3)
       select to_char(greatest(date_trunc('day', at at time zone 'UTC'), ($2::timestamptz at time zone 'UTC')), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as day,
              count(*)::int as returns, sum(items)::int as items
         from placed group by 1 order by 1`,
      [store.storeId, WINDOW.from, WINDOW.until],
    );
    const reasons = await query<{ key: string; returns: number; items: number }>(
      app.databaseUrl,
      `select i.reason as key, count(distinct r.id)::int as returns, sum(i.quantity)::int as items
         from returns.return r join returns."order" o on o.id = r.order_id join returns.return_item i on i.return_id = r.id and i.status = 'active'
        where r.store_id = $1 and o.imported_at is null and o.created_at >= $2 and o.created_at < $3
        group by 1 order by 2 desc, 1`,
      [store.storeId, WINDOW.from, WINDOW.until],
    );
    const byDay = new Map(rows.map((r) => [r.day, { returns: r.returns, items: r.items }]));
    const series = ['2026-05-01T00:30:00.000Z', '2026-05-02T00:00:00.000Z', '2026-05-03T00:00:00.000Z', '2026-05-04T00:00:00.000Z', '2026-05-05T00:00:00.000Z'].map((start) => ({
      start,
      measures: byDay.get(start) ?? { returns: 0, items: 0 },
    }));
    return {
      totals: { returns: rows.reduce((a, r) => a + r.returns, 0), items: rows.reduce((a, r) => a + r.items, 0) },
      series,
      reasons: reasons.map(({ key, ...measures }) => ({ key, measures })),
    };
  }

  async function expectExact(): Promise<void> {
    const want = await byHand();
    const answer = await stats();
    expect(answer.totals).toEqual(want.totals);
    expect(answer.series).toEqual(want.series);
    expect((await stats('REASON')).groups).toEqual(want.reasons);
  }

  beforeAll(async () => {
    // Orders at the window's clipped edges, in whole hours inside it, and outside it.
    const times = ['2026-05-01T00:10:00Z', '2026-05-01T00:45:00Z', '2026-05-01T07:00:00Z', '2026-05-02T23:59:00Z', '2026-05-03T12:00:00Z', '2026-05-05T12:10:00Z', '2026-05-05T12:40:00Z', '2026-04-30T10:00:00Z'];
    for (const [i, createdAt] of times.entries()) {
      const pushed = await pushOrder(
        app,
        store,
        orderBody({ id: `od-${i}`, customer: { firstName: 'C', email: `c${i}@example.com` }, createdAt }, [
          { id: 'l1', quantity: 3, price: '10.00', sku: 'A' },
          { id: 'l2', quantity: 2, price: '5.00', sku: 'B' },
        ]),
      );
      expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
      const res = await postReturn(app, store, returnBody(`od-${i}`, [{ lineItemId: 'l1', quantity: 1 + (i % 3), reason: i % 2 ? 'too big' : 'damaged' }, { lineItemId: 'l2', quantity: 1, reason: 'late' }]));
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      returnIds.push(res.body.return.id as string);
    }
  });

  it('answers what the returns and their orders say, before and after compaction', async () => {
    await expectExact();
    await compactReturnStats(app.service.runtime.deps.returns!.orm, 5);
    const [left] = await query<{ n: number }>(app.databaseUrl, 'select count(*)::int as n from returns.return_order_stat where not compacted');
    expect(left!.n).toBe(0);
    const [folded] = await query<{ n: number }>(app.databaseUrl, 'select count(*)::int as n from returns.return_order_stat where store_id = $1', [store.storeId]);
    expect(folded!.n).toBeGreaterThan(0);
    await expectExact();
  });

  it('follows returns that change status and lose items, and orders whose creation time is corrected', async () => {
    const status = await app.graphql(`mutation($id: ID!) { updateReturnStatus(returnId: $id, status: rejected) { id } }`, { id: returnIds[2] }, store.apiSecret);
    expect(status.errors, JSON.stringify(status.errors)).toBeUndefined();
    // An item taken off a two-item return.
    const [line] = await query<{ numericId: string }>(
      app.databaseUrl,
      `select l.compat_id::text as "numericId" from returns.return_item i join returns.order_line_item l on l.id = i.order_line_item_id where i.return_id = $1 order by i.position desc limit 1`,
      [returnIds[4]],
    );
    const removed = await app.graphql(
      `mutation($s: ID!, $id: ID!, $lines: [ID!]!) { removeReturnItems(storeId: $s, return: {id: $id}, orderLineNumericIds: $lines) { applied } }`,
      { s: store.storeId, id: returnIds[4], lines: [line!.numericId] },
      store.apiSecret,
    );
    expect(removed.errors, JSON.stringify(removed.errors)).toBeUndefined();
    const [active] = await query<{ n: number }>(app.databaseUrl, `select count(*)::int as n from returns.return_item where return_id = $1 and status = 'active'`, [returnIds[4]]);
    expect(active!.n).toBe(1);
    await expectExact();
    // The order of the first return moves from before the window into its second day; another out of it.
    for (const [i, createdAt] of [[7, '2026-05-02T08:00:00Z'], [3, '2026-06-01T00:00:00Z']] as const) {
      const pushed = await pushOrder(
        app,
        store,
        orderBody({ id: `od-${i}`, customer: { firstName: 'C', email: `c${i}@example.com` }, createdAt }, [
          { id: 'l1', quantity: 3, price: '10.00', sku: 'A' },
          { id: 'l2', quantity: 2, price: '5.00', sku: 'B' },
        ]),
      );
      expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
    }
    const [moved] = await query<{ n: number }>(app.databaseUrl, `select count(*)::int as n from returns."order" where store_id = $1 and created_at = '2026-05-02T08:00:00Z'`, [store.storeId]);
    expect(moved!.n).toBe(1);
    await expectExact();
    await compactReturnStats(app.service.runtime.deps.returns!.orm);
    await expectExact();
  });
});
