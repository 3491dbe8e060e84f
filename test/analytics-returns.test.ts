import { beforeAll, describe, expect, it } from 'vitest';
import { compactReturnStats } from '../subgraphs/returns/return-stats.service.js';
import { bucketLabel, ExpectedReturns, inWindow, NO_RETURNS, RETURN_MEASURES, type ReturnMeasures, type WindowArg } from './support/analytics.js';
import { useTestAccount, useTestApp } from './support/app.js';
import { query } from './support/database.js';
import { eventually } from './support/eventually.js';
import { randomFrom } from './support/random.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';

/**
 * returnStats against a hand computation over the same rows: the stored returns, items and order
 * lines read back with plain SQL, bucketed by their local date (or hour, week, month) as Intl
 * formats it, summed in TypeScript.
 */

const RETURN_STATS = `query($s: ID!, $w: TimeWindowInput!, $by: ReturnDimension, $f: ReturnStatsFilterInput) {
  returnStats(storeId: $s, window: $w, by: $by, filter: $f) { totals { ${RETURN_MEASURES} } series { start measures { ${RETURN_MEASURES} } } groups { key measures { ${RETURN_MEASURES} } } }
}`;

interface Stats {
  totals: ReturnMeasures;
  series: { start: string; measures: ReturnMeasures }[];
  groups: { key: string; measures: ReturnMeasures }[];
}
interface StoredReturn {
  id: string;
  createdAt: Date;
  currency: string;
  status: string;
  type: string;
  orderName: string;
}
interface StoredItem {
  returnId: string;
  quantity: number;
  reason: string;
  compensation: string;
  refund: string;
  outcome: string | null;
  sku: string | null;
}
interface StoredLine {
  createdAt: Date;
  sku: string | null;
  quantity: number;
}

const bucketOf = <K>(map: Map<K, ExpectedReturns>, key: K) => {
  let e = map.get(key);
  if (!e) map.set(key, (e = new ExpectedReturns()));
  return e;
};


describe('returnStats', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Acme');
  const other = useTestAccount(app, 'Other');
  let returns: StoredReturn[] = [];
  let items: StoredItem[] = [];
  let lines: StoredLine[] = [];

  const stats = async (window: WindowArg, by?: string, filter?: Record<string, unknown>, token = acme.apiSecret) => {
    const res = await app.graphql<{ returnStats: Stats }>(RETURN_STATS, { s: acme.storeId, w: window, by, f: filter }, token);
    expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
    return res.data!.returnStats;
  };

  async function readBack(): Promise<void> {
    const url = app.databaseUrl;
    returns = await query<StoredReturn>(
      url,
      `select id, created_at as "createdAt", currency, status, type, order_name as "orderName" from returns.return where store_id = $1`,
      [acme.storeId],
    );
    items = await query<StoredItem>(
      url,
      `select i.return_id as "returnId", i.quantity, i.reason, i.compensation, i.refund_amount::text as refund, i.outcome, l.sku
         from returns.return_item i join returns.order_line_item l on l.id = i.order_line_item_id join returns.return r on r.id = i.return_id
        where r.store_id = $1 and i.status = 'active'`,
      [acme.storeId],
    );
    lines = await query<StoredLine>(
      url,
      `select o.created_at as "createdAt", l.sku, l.quantity from returns."order" o join returns.order_line_item l on l.order_id = o.id
        where o.store_id = $1 and l.removed_at is null`,
      [acme.storeId],
    );
  }

  /** What the answer must be, from the rows read back. */
  function expected(window: WindowArg, by?: string, filter: { status?: string; providerOrderName?: string } = {}) {
    const series = new Map<string, ExpectedReturns>();
    const total = new ExpectedReturns();
    const groups = new Map<string, ExpectedReturns>();
    const ordered = new Map<string, number>();
    const orderedSku = new Map<string, number>();
    for (const line of lines.filter((l) => inWindow(l.createdAt, window))) {
      const key = bucketLabel(line.createdAt, window);
      ordered.set(key, (ordered.get(key) ?? 0) + line.quantity);
      orderedSku.set(line.sku ?? '', (orderedSku.get(line.sku ?? '') ?? 0) + line.quantity);
    }
    const kept = returns.filter((r) => inWindow(r.createdAt, window) && (!filter.status || r.status === filter.status) && (!filter.providerOrderName || r.orderName === filter.providerOrderName));
    for (const ret of kept) {
      const own = items.filter((i) => i.returnId === ret.id);
      bucketOf(series, bucketLabel(ret.createdAt, window)).add(ret, own);
      total.add(ret, own);
      if (by === 'STATUS') bucketOf(groups, ret.status).add(ret, own);
      if (by === 'TYPE') bucketOf(groups, ret.type).add(ret, own);
      const itemKey = by === 'REASON' ? (i: StoredItem) => i.reason : by === 'SKU' ? (i: StoredItem) => i.sku ?? '' : by === 'OUTCOME' ? (i: StoredItem) => i.outcome ?? '' : undefined;
      if (itemKey) {
        for (const key of new Set(own.map(itemKey))) bucketOf(groups, key).add(ret, own.filter((i) => itemKey(i) === key));
      }
    }
    const allOrdered = [...ordered.values()].reduce((a, b) => a + b, 0);
    return {
      series: new Map([...series].map(([k, e]) => [k, e.measures(ordered.get(k) ?? 0)])),
      ordered,
      totals: total.measures(allOrdered),
      groups: [...groups]
        .map(([key, e]) => ({ key, measures: e.measures(by === 'SKU' ? (orderedSku.get(key) ?? 0) : allOrdered) }))
        .sort((a, b) => b.measures.returns - a.measures.returns || (a.key < b.key ? -1 : 1))
        .slice(0, 50),
    };
  }

  function check(window: WindowArg, answer: Stats, by?: string, filter?: { status?: string; providerOrderName?: string }): void {
    const want = expected(window, by, filter);
    const labels = answer.series.map((b) => bucketLabel(new Date(b.start), window));
    expect(new Set(labels).size, 'one bucket per local span').toBe(labels.length);
    expect(answer.series[0]!.start).toBe(new Date(window.from).toISOString());
    for (const key of [...want.series.keys(), ...want.ordered.keys()]) expect(labels, `bucket ${key} is listed`).toContain(key);
    answer.series.forEach((bucket, i) => {
      if (i > 0) expect(Date.parse(bucket.start)).toBeGreaterThan(Date.parse(answer.series[i - 1]!.start));
      const ordered = want.ordered.get(labels[i]!) ?? 0;
      expect(bucket.measures, `bucket ${labels[i]}`).toEqual(want.series.get(labels[i]!) ?? { ...NO_RETURNS, returnRate: ordered ? 0 : null });
    });
    expect(answer.totals).toEqual(want.totals);
    expect(answer.groups).toEqual(want.groups);
  }

  beforeAll(async () => {
    // A fixed data set: every test below checks its own hand computation over it.
    const random = randomFrom(29);
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
    // Two periods around daylight-saving changes: Berlin's spring (2026-03-29) and New York's autumn (2026-11-01).
    const instant = () =>
      random() < 0.6 ? new Date(Date.parse('2026-03-26T00:00:00Z') + Math.floor(random() * 8 * 86_400_000)) : new Date(Date.parse('2026-10-30T00:00:00Z') + Math.floor(random() * 4 * 86_400_000));
    const skus = ['A', 'B', 'C', undefined];
    const orders: { id: string; currency: string; lines: { id: string; quantity: number }[] }[] = [];
    for (let n = 0; n < 24; n++) {
      const currency = ['USD', 'EUR', 'JPY'][n % 3]!;
      const lineItems = Array.from({ length: 1 + (n % 3) }, (_, k) => ({
        id: `l${k}`,
        quantity: 1 + Math.floor(random() * 3),
        price: currency === 'JPY' ? String(500 + Math.floor(random() * 5000)) : (5 + random() * 100).toFixed(2),
        tax: currency === 'JPY' ? '0' : (random() * 3).toFixed(2),
        sku: pick(skus),
        title: 'Thing',
      }));
      const body = orderBody({ id: `o-${n}`, currency, createdAt: instant().toISOString() }, lineItems);
      expect((await pushOrder(app, acme, body)).status).toBe(200);
      orders.push({ id: `o-${n}`, currency, lines: lineItems });
    }
    // The other store's returns never show.
    await pushOrder(app, other, orderBody({ id: 'x-1', createdAt: '2026-03-28T12:00:00Z' }, [{ id: 'l', quantity: 5, price: '9.00' }]));
    await postReturn(app, other, returnBody('x-1', [{ lineItemId: 'l', quantity: 2, reason: 'other' }]));

    const created: string[] = [];
    for (const [n, order] of orders.slice(0, 18).entries()) {
      const chosen = order.lines.slice(0, 1 + (n % 2));
      const res = await postReturn(
        app,
        acme,
        returnBody(
          order.id,
          chosen.map((l) => ({ lineItemId: l.id, quantity: 1 + Math.floor(random() * l.quantity), reason: pick(['too big', 'too small', 'damaged']), compensation: pick(['refund', 'store_credit', 'exchange']) })),
          n % 4 === 1 ? { type: 'warranty' } : {},
        ),
      );
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      created.push(res.body.return.id);
    }
    // Creation times across the periods, some exactly on local midnights (Berlin, both offsets) and on the window edges used below.
    const fixed = ['2026-03-28T23:00:00Z', '2026-03-29T22:00:00Z', '2026-03-26T10:30:00Z', '2026-03-26T10:10:00Z', '2026-04-03T15:10:00Z', '2026-11-01T05:00:00Z', '2026-11-01T06:00:00Z'];
    for (const [n, id] of created.entries()) {
      await query(app.databaseUrl, 'update returns.return set created_at = $2 where id = $1', [id, fixed[n] ?? instant().toISOString()]);
    }
    const status = (id: string, s: string) => app.graphql(`mutation($id: ID!, $s: ReturnStatus!) { updateReturnStatus(returnId: $id, status: $s) { id } }`, { id, s }, acme.apiSecret);
    expect((await status(created[0]!, 'complete')).errors).toBeUndefined();
    expect((await status(created[1]!, 'rejected')).errors).toBeUndefined();
    expect((await status(created[2]!, 'complete')).errors).toBeUndefined();
    // An item taken off a two-item return.
    const [line] = await query<{ numericId: string }>(
      app.databaseUrl,
      `select l.compat_id::text as "numericId" from returns.return_item i join returns.order_line_item l on l.id = i.order_line_item_id where i.return_id = $1 order by i.position limit 1`,
      [created[3]],
    );
    const removed = await app.graphql(
      `mutation($s: ID!, $id: ID!, $lines: [ID!]!) { removeReturnItems(storeId: $s, return: {id: $id}, orderLineNumericIds: $lines) { applied } }`,
      { s: acme.storeId, id: created[3], lines: [line!.numericId] },
      acme.apiSecret,
    );
    expect(removed.errors).toBeUndefined();
    // Processed returns get their items' outcomes (by the completion job).
    for (const id of created.slice(5, 8)) {
      const [first] = await query<{ id: string }>(app.databaseUrl, `select id from returns.return_item where return_id = $1 order by position limit 1`, [id]);
      const input = { products: [{ _id: first!.id, reject: true }] };
      expect((await app.graphql(`mutation($id: ID!, $i: JSON!) { processReturn(returnId: $id, input: $i) { id } }`, { id, i: input }, acme.apiSecret)).errors).toBeUndefined();
    }
    await eventually(async () => {
      const [row] = await query<{ n: number }>(app.databaseUrl, `select count(*)::int as n from returns.return where id = any($1) and status = 'complete'`, [created.slice(5, 8)]);
      return row!.n === 3;
    }, 'the processed returns to complete');
    // An order moved to another day, and one that lost a line (kept, hidden).
    const moved = orders[20]!;
    await pushOrder(app, acme, orderBody({ id: moved.id, currency: moved.currency, createdAt: '2026-03-30T01:30:00Z' }, moved.lines.map((l) => ({ ...l, price: '10' }))));
    const trimmed = orders[19]!;
    if (trimmed.lines.length > 1) await pushOrder(app, acme, orderBody({ id: trimmed.id, currency: trimmed.currency, createdAt: '2026-03-27T09:00:00Z' }, [{ ...trimmed.lines[0]!, price: '10' }]));
    await readBack();
  });

  it('answers a day series across Berlin\'s spring change, clipped at both ends, with empty days, per currency', async () => {
    const window: WindowArg = { from: '2026-03-26T10:20:00Z', until: '2026-04-03T15:30:00Z', timeZone: 'Europe/Berlin' };
    const answer = await stats(window);
    expect(answer.series.map((b) => b.start)).toEqual([
      '2026-03-26T10:20:00.000Z',
      '2026-03-26T23:00:00.000Z',
      '2026-03-27T23:00:00.000Z',
      '2026-03-28T23:00:00.000Z',
      '2026-03-29T22:00:00.000Z',
      '2026-03-30T22:00:00.000Z',
      '2026-03-31T22:00:00.000Z',
      '2026-04-01T22:00:00.000Z',
      '2026-04-02T22:00:00.000Z',
    ]);
    check(window, answer);
    expect(answer.totals.returns).toBeGreaterThan(8);
    expect(answer.series.some((b) => b.measures.returns === 0)).toBe(true);
    expect(new Set(answer.totals.refund.concat(answer.totals.storeCredit, answer.totals.exchange).map((m) => m.currency)).size).toBeGreaterThan(1);
  });

  for (const by of ['REASON', 'SKU', 'STATUS', 'TYPE', 'OUTCOME']) {
    it(`groups by ${by}`, async () => {
      const window: WindowArg = { from: '2026-03-20T00:00:00Z', until: '2026-04-10T00:00:00Z', timeZone: 'Europe/Berlin' };
      const answer = await stats(window, by);
      check(window, answer, by);
      expect(answer.groups.length).toBeGreaterThan(1);
    });
  }

  it('answers hours across New York\'s autumn change (the repeated hour is two buckets)', async () => {
    const window: WindowArg = { from: '2026-10-31T20:00:00Z', until: '2026-11-02T03:00:00Z', interval: 'HOUR', timeZone: 'America/New_York' };
    const answer = await stats(window, 'REASON');
    expect(answer.series.map((b) => b.start)).toContain('2026-11-01T05:00:00.000Z');
    expect(answer.series.map((b) => b.start)).toContain('2026-11-01T06:00:00.000Z');
    check(window, answer, 'REASON');
  });

  it('answers weeks and months, and days in a zone half an hour off UTC', async () => {
    for (const window of [
      { from: '2026-03-01T00:00:00Z', until: '2026-12-01T00:00:00Z', interval: 'WEEK', timeZone: 'America/New_York' },
      { from: '2026-01-15T08:00:00Z', until: '2026-12-31T00:00:00Z', interval: 'MONTH', timeZone: 'Europe/Berlin' },
      { from: '2026-03-25T00:00:00Z', until: '2026-04-04T00:00:00Z', interval: 'DAY', timeZone: 'Asia/Kolkata' },
    ] as WindowArg[]) {
      check(window, await stats(window, 'SKU'), 'SKU');
    }
  });

  it('filters by status (from the rollup) and by order name (from the rows)', async () => {
    const window: WindowArg = { from: '2026-03-20T00:00:00Z', until: '2026-11-20T00:00:00Z', interval: 'MONTH', timeZone: 'Europe/Berlin' };
    check(window, await stats(window, 'REASON', { status: 'complete' }), 'REASON', { status: 'complete' });
    const name = returns[4]!.orderName;
    check(window, await stats(window, 'STATUS', { providerOrderName: name }), 'STATUS', { providerOrderName: name });
  });

  it('answers the same after compaction, and a store without data with zeros', async () => {
    const window: WindowArg = { from: '2026-03-20T00:00:00Z', until: '2026-04-10T00:00:00Z', timeZone: 'Europe/Berlin' };
    const before = await stats(window, 'SKU');
    // Five rows a pass: many short passes, as after a bulk load.
    await compactReturnStats(app.service.runtime.deps.returns!.orm, 5);
    const [left] = await query<{ n: number }>(app.databaseUrl, 'select count(*)::int as n from returns.return_stat where not compacted');
    expect(left!.n).toBe(0);
    expect(await stats(window, 'SKU')).toEqual(before);
    check(window, before, 'SKU');

    const empty = await app.graphql<{ returnStats: Stats }>(RETURN_STATS, { s: acme.storeId, w: { from: '2025-01-01T00:00:00Z', until: '2025-01-04T00:00:00Z' } }, acme.apiSecret);
    expect(empty.data!.returnStats).toEqual({ totals: NO_RETURNS, series: ['2025-01-01', '2025-01-02', '2025-01-03'].map((d) => ({ start: `${d}T00:00:00.000Z`, measures: NO_RETURNS })), groups: [] });
  });

  it('uses the store\'s time zone when the window names none', async () => {
    await app.graphql(`mutation($s: ID!) { updateStore(storeId: $s, input: {timeZone: "Europe/Berlin"}) { timeZone } }`, { s: acme.storeId }, acme.apiSecret);
    const answer = await stats({ from: '2026-03-28T00:00:00Z', until: '2026-03-31T00:00:00Z' });
    expect(answer.series.map((b) => b.start)).toEqual(['2026-03-28T00:00:00.000Z', '2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z', '2026-03-30T22:00:00.000Z']);
    await app.graphql(`mutation($s: ID!) { updateStore(storeId: $s, input: {timeZone: null}) { timeZone } }`, { s: acme.storeId }, acme.apiSecret);
  });

  it('refuses a bad window or filter naming the argument, and hides other accounts\' stores', async () => {
    const bad = async (w: WindowArg, f?: Record<string, unknown>) => {
      const res = await app.graphql(RETURN_STATS, { s: acme.storeId, w, f }, acme.apiSecret);
      expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      return (res.errors![0]!.extensions!.errors as { pointer: string }[])[0]!.pointer;
    };
    expect(await bad({ from: '2026-03-01T00:00:00Z', until: '2026-03-02T00:00:00Z', timeZone: 'Nowhere/Else' })).toBe('/window/timeZone');
    expect(await bad({ from: '2026-03-02T00:00:00Z', until: '2026-03-02T00:00:00Z' })).toBe('/window/until');
    expect(await bad({ from: '2026-01-01T00:00:00Z', until: '2026-03-01T00:00:00Z', interval: 'HOUR' })).toBe('/window');
    expect(await bad({ from: '2026-03-01T00:00:00Z', until: '2026-03-02T00:00:00Z' }, { status: 'lost' })).toBe('/filter/status');
    const hidden = await app.graphql(RETURN_STATS, { s: acme.storeId, w: { from: '2026-03-01T00:00:00Z', until: '2026-03-02T00:00:00Z' } }, other.apiSecret);
    expect(hidden.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});
