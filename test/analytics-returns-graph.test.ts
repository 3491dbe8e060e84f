import { beforeAll, describe, expect, it } from 'vitest';
import { bucketLabel, ExpectedReturns, inWindow, NO_RETURNS, RETURN_MEASURES, type ReturnMeasures, type WindowArg } from './support/analytics.js';
import { useTestAccount, useTestApp } from './support/app.js';
import { query } from './support/database.js';
import { accept, drained } from './support/events.js';
import { v22 } from './support/orders.js';
import { randomFrom } from './support/random.js';
import { orderBody, postReturn, pushOrder, returnBody, type OrderLine } from './support/returns.js';

/**
 * returnStats across the graph (decisions section 22): the returns of a segment's customers (the
 * segment evaluated by the events subgraph), by order date, and against the period before, each
 * against a hand computation over the stored rows, across daylight-saving changes.
 */

const PERIOD = `from until basis totals { ${RETURN_MEASURES} } series { start measures { ${RETURN_MEASURES} } } groups { key measures { ${RETURN_MEASURES} } }`;
const RETURN_STATS = `query($s: ID!, $w: TimeWindowInput!, $by: ReturnDimension, $f: ReturnStatsFilterInput, $basis: ReturnStatsBasis, $compare: ReturnStatsComparison) {
  returnStats(storeId: $s, window: $w, by: $by, filter: $f, basis: $basis, compareTo: $compare) { ${PERIOD} previous { ${PERIOD} previous { from } } }
}`;

interface Period {
  from: string;
  until: string;
  basis: string;
  totals: ReturnMeasures;
  series: { start: string; measures: ReturnMeasures }[];
  groups: { key: string; measures: ReturnMeasures }[];
}
interface Stats extends Period {
  previous: (Period & { previous: null }) | null;
}
interface StoredReturn {
  id: string;
  createdAt: Date;
  orderedAt: Date;
  currency: string;
  status: string;
  email: string | null;
  phone: string | null;
}
interface StoredItem {
  returnId: string;
  quantity: number;
  reason: string;
  compensation: string;
  refund: string;
}
interface StoredLine {
  createdAt: Date;
  email: string | null;
  phone: string | null;
  quantity: number;
}


/** The VIP segment, as the events subgraph knows it: a custom field of the customer's profile. */
const VIP = { all: [{ profile: { field: 'customFields.tier', operator: 'EQUALS', value: 'vip' } }] };
/** Who the VIP customers are to the returns subgraph: vip-a by email (any case), vip-b by phone. */
const isVip = (email: string | null, phone: string | null) => email?.toLowerCase() === 'vip-a@example.com' || phone === '+15550002222';
/** Whose returns and units an answer counts, by their order's email and phone. */
type Whose = (email: string | null, phone: string | null) => boolean;
const anyone: Whose = () => true;

describe('returnStats by segment, by order date, against the previous period', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Acme');
  const other = useTestAccount(app, 'Other');
  let returns: StoredReturn[] = [];
  let items: StoredItem[] = [];
  let lines: StoredLine[] = [];

  const stats = async (window: WindowArg, options: { by?: string; filter?: Record<string, unknown>; basis?: string; compare?: boolean; token?: string } = {}) => {
    const res = await app.graphql<{ returnStats: Stats }>(
      RETURN_STATS,
      { s: acme.storeId, w: window, by: options.by, f: options.filter, basis: options.basis, compare: options.compare ? 'PREVIOUS_PERIOD' : undefined },
      options.token ?? acme.apiSecret,
    );
    expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
    return res.data!.returnStats;
  };

  /** What one period must answer, from the rows read back. */
  function expected(window: WindowArg, basis: 'CREATED' | 'ORDER_DATE', whose: Whose, by?: 'REASON' | 'STATUS') {
    const series = new Map<string, ExpectedReturns>();
    const total = new ExpectedReturns();
    const groups = new Map<string, ExpectedReturns>();
    const ordered = new Map<string, number>();
    for (const line of lines.filter((l) => inWindow(l.createdAt, window) && whose(l.email, l.phone))) {
      const key = bucketLabel(line.createdAt, window);
      ordered.set(key, (ordered.get(key) ?? 0) + line.quantity);
    }
    const placed = (r: StoredReturn) => (basis === 'ORDER_DATE' ? r.orderedAt : r.createdAt);
    for (const ret of returns.filter((r) => inWindow(placed(r), window) && whose(r.email, r.phone))) {
      const own = items.filter((i) => i.returnId === ret.id);
      const label = bucketLabel(placed(ret), window);
      if (!series.has(label)) series.set(label, new ExpectedReturns());
      series.get(label)!.add(ret, own);
      total.add(ret, own);
      const keys = by === 'STATUS' ? [ret.status] : by === 'REASON' ? [...new Set(own.map((i) => i.reason))] : [];
      for (const key of keys) {
        if (!groups.has(key)) groups.set(key, new ExpectedReturns());
        groups.get(key)!.add(ret, by === 'REASON' ? own.filter((i) => i.reason === key) : own);
      }
    }
    const allOrdered = [...ordered.values()].reduce((a, b) => a + b, 0);
    return {
      series,
      ordered,
      totals: total.measures(allOrdered),
      groups: [...groups]
        .map(([key, e]) => ({ key, measures: e.measures(allOrdered) }))
        .sort((a, b) => b.measures.returns - a.measures.returns || (a.key < b.key ? -1 : 1))
        .slice(0, 50),
    };
  }

  function check(window: WindowArg, answer: Period, basis: 'CREATED' | 'ORDER_DATE', whose: Whose, by?: 'REASON' | 'STATUS'): void {
    const want = expected(window, basis, whose, by);
    expect(answer.from).toBe(new Date(window.from).toISOString());
    expect(answer.until).toBe(new Date(window.until).toISOString());
    expect(answer.basis).toBe(basis);
    const labels = answer.series.map((b) => bucketLabel(new Date(b.start), window));
    expect(new Set(labels).size, 'one bucket per local span').toBe(labels.length);
    expect(answer.series[0]!.start).toBe(new Date(window.from).toISOString());
    for (const key of [...want.series.keys(), ...want.ordered.keys()]) expect(labels, `bucket ${key} is listed`).toContain(key);
    answer.series.forEach((bucket, i) => {
      const ordered = want.ordered.get(labels[i]!) ?? 0;
      expect(bucket.measures, `bucket ${labels[i]}`).toEqual(want.series.get(labels[i]!)?.measures(ordered) ?? { ...NO_RETURNS, returnRate: ordered ? 0 : null });
    });
    expect(answer.totals).toEqual(want.totals);
    expect(answer.groups).toEqual(want.groups);
  }

  beforeAll(async () => {
    // The events subgraph's customers: two VIPs and a regular one.
    await accept(app, acme, { eventName: 'Joined', customer: { email: 'vip-a@example.com', customFields: { tier: 'vip' } } });
    await accept(app, acme, { eventName: 'Joined', customer: { email: 'vip-b@example.com', phoneNumber: '+15550002222', customFields: { tier: 'vip' } } });
    await accept(app, acme, { eventName: 'Joined', customer: { email: 'reg@example.com', customFields: { tier: 'regular' } } });
    // Another store's VIP with the same email: never counted for acme.
    await accept(app, other, { eventName: 'Joined', customer: { email: 'reg@example.com', customFields: { tier: 'vip' } } });
    await drained(app.databaseUrl);

    const random = randomFrom(41);
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
    // Orders around New York's autumn change (2026-11-01) and Berlin's spring change (2026-03-29), and a few in the periods before.
    const orderedAt = () => {
      const r = random();
      if (r < 0.45) return Date.parse('2026-10-20T00:00:00Z') + Math.floor(random() * 20 * 86_400_000);
      if (r < 0.9) return Date.parse('2026-02-20T00:00:00Z') + Math.floor(random() * 60 * 86_400_000);
      return Date.parse('2025-12-20T00:00:00Z') + Math.floor(random() * 40 * 86_400_000);
    };
    // The VIPs as their orders name them: vip-a by email in another case (and another phone), vip-b by phone
    // (another email), and by both (counted once).
    const customers = [
      { email: 'VIP-A@Example.com', phoneNumber: '+15550009999' },
      { email: 'someone@example.net', phoneNumber: '+15550002222' },
      { email: 'reg@example.com', phoneNumber: '+15550003333' },
      { email: 'guest@example.com', phoneNumber: null },
      { email: 'vip-b@example.com', phoneNumber: '+15550002222' },
    ];
    const orders: { id: string; lines: { id: string; quantity: number }[]; at: number }[] = [];
    for (let n = 0; n < 40; n++) {
      const currency = ['USD', 'EUR'][n % 2]!;
      const at = orderedAt();
      const lineItems = Array.from({ length: 1 + (n % 3) }, (_, k) => ({ id: `l${k}`, quantity: 1 + Math.floor(random() * 3), price: (5 + random() * 100).toFixed(2), sku: pick(['A', 'B']), title: 'Thing' }));
      const body = orderBody({ id: `o-${n}`, currency, createdAt: new Date(at).toISOString(), customer: { ...customers[n % 5]!, firstName: 'C' } }, lineItems);
      const pushed = await pushOrder(app, acme, body);
      expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
      orders.push({ id: `o-${n}`, lines: lineItems, at });
    }
    // The other store's returns never show.
    await pushOrder(app, other, orderBody({ id: 'x-1', createdAt: '2026-11-02T12:00:00Z', customer: { email: 'reg@example.com' } }, [{ id: 'l', quantity: 5, price: '9.00' }]));
    await postReturn(app, other, returnBody('x-1', [{ lineItemId: 'l', quantity: 2, reason: 'other' }]));

    for (const [n, order] of orders.entries()) {
      if (n % 6 === 5) continue;
      const chosen = order.lines.slice(0, 1 + (n % 2));
      const res = await postReturn(
        app,
        acme,
        returnBody(
          order.id,
          chosen.map((l) => ({ lineItemId: l.id, quantity: 1 + Math.floor(random() * l.quantity), reason: pick(['too big', 'too small', 'damaged']), compensation: pick(['refund', 'store_credit', 'exchange']) })),
        ),
      );
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      // Returned a few hours to three weeks after the order: often in another bucket, sometimes in another period.
      const returnedAt = order.at + Math.floor((0.1 + random() * 21) * 86_400_000);
      await query(app.databaseUrl, 'update returns.return set created_at = $2 where id = $1', [res.body.return.id, new Date(returnedAt).toISOString()]);
      if (n % 7 === 0) {
        const done = await app.graphql(`mutation($id: ID!) { updateReturnStatus(returnId: $id, status: complete) { id } }`, { id: res.body.return.id }, acme.apiSecret);
        expect(done.errors).toBeUndefined();
      }
    }

    await readBack();
    expect(returns.filter((r) => isVip(r.email, r.phone)).length).toBeGreaterThan(8);
  });

  /** The returns, their items and the orders' lines as stored now: what every answer is checked against. */
  async function readBack(): Promise<void> {
    returns = await query<StoredReturn>(
      app.databaseUrl,
      `select r.id, r.created_at as "createdAt", o.created_at as "orderedAt", r.currency, r.status, o.customer_email as email, o.customer_phone as phone
         from returns.return r join returns."order" o on o.id = r.order_id where r.store_id = $1`,
      [acme.storeId],
    );
    items = await query<StoredItem>(
      app.databaseUrl,
      `select i.return_id as "returnId", i.quantity, i.reason, i.compensation, i.refund_amount::text as refund
         from returns.return_item i join returns.return r on r.id = i.return_id where r.store_id = $1 and i.status = 'active'`,
      [acme.storeId],
    );
    lines = await query<StoredLine>(
      app.databaseUrl,
      `select o.created_at as "createdAt", o.customer_email as email, o.customer_phone as phone, l.quantity
         from returns."order" o join returns.order_line_item l on l.order_id = o.id where o.store_id = $1 and l.removed_at is null`,
      [acme.storeId],
    );
  }

  // A week of New York days across its autumn change (a 25-hour day), and the week before.
  const NY_WEEK: WindowArg = { from: '2026-10-29T04:00:00Z', until: '2026-11-05T05:00:00Z', timeZone: 'America/New_York' };
  const NY_WEEK_BEFORE: WindowArg = { from: '2026-10-22T04:00:00Z', until: '2026-10-29T04:00:00Z', timeZone: 'America/New_York' };

  it('answers by order date: of the orders placed in each day, what came back (whenever it did), against their units', async () => {
    const answer = await stats(NY_WEEK, { basis: 'ORDER_DATE', by: 'REASON' });
    expect(answer.series).toHaveLength(7);
    check(NY_WEEK, answer, 'ORDER_DATE', anyone, 'REASON');
    // Not the same as by creation: returns come days after their orders.
    const created = await stats(NY_WEEK, { by: 'REASON' });
    check(NY_WEEK, created, 'CREATED', anyone, 'REASON');
    expect(created.totals).not.toEqual(answer.totals);
    expect(answer.previous).toBeNull();
  });

  it('answers for a segment evaluated by the events subgraph, matching orders by email (any case) or phone, against that segment\'s ordered units', async () => {
    for (const basis of ['CREATED', 'ORDER_DATE'] as const) {
      const answer = await stats(NY_WEEK, { basis, by: 'STATUS', filter: { segment: VIP } });
      check(NY_WEEK, answer, basis, isVip, 'STATUS');
      expect(answer.totals.returns).toBeGreaterThan(0);
      expect(answer.totals.returns).toBeLessThan((await stats(NY_WEEK, { basis })).totals.returns);
    }
    const berlin: WindowArg = { from: '2026-02-23T00:00:00Z', until: '2026-04-20T00:00:00Z', interval: 'WEEK', timeZone: 'Europe/Berlin' };
    check(berlin, await stats(berlin, { basis: 'ORDER_DATE', filter: { segment: VIP } }), 'ORDER_DATE', isVip);
    // A segment nobody is in: nothing, and no orders to rate against.
    const none = await stats(NY_WEEK, { filter: { segment: { all: [{ profile: { field: 'customFields.tier', operator: 'EQUALS', value: 'platinum' } }] } } });
    expect(none.totals).toEqual(NO_RETURNS);
    // The filter's email (any case) chooses one customer's orders, alone or within the segment (where it
    // meets vip-b's phone under another email).
    const ofEmail = (wanted: string) => (email: string | null) => email?.toLowerCase() === wanted;
    for (const basis of ['CREATED', 'ORDER_DATE'] as const) {
      check(NY_WEEK, await stats(NY_WEEK, { basis, by: 'STATUS', filter: { email: 'Reg@Example.COM' } }), basis, ofEmail('reg@example.com'), 'STATUS');
      const someone = await stats(berlin, { basis, filter: { segment: VIP, email: 'SOMEONE@example.net' } });
      check(berlin, someone, basis, (email, phone) => isVip(email, phone) && ofEmail('someone@example.net')(email));
      expect(someone.totals.returns).toBeGreaterThan(0);
    }
    // Filters combine with the segment.
    const complete = await stats(berlin, { filter: { segment: VIP, status: 'complete' }, basis: 'ORDER_DATE' });
    expect(complete.totals.returns).toBe(returns.filter((r) => isVip(r.email, r.phone) && r.status === 'complete' && inWindow(r.orderedAt, berlin)).length);
  });

  it('follows orders whose customer or lines change, and orders deleted, in the segment and its ordered units', async () => {
    // Every order of the store, by month in UTC, by status: both bases, with the segment and without.
    const year: WindowArg = { from: '2025-12-01T00:00:00Z', until: '2026-12-01T00:00:00Z', interval: 'MONTH', timeZone: 'UTC' };
    const checkAll = async () => {
      await readBack();
      for (const basis of ['CREATED', 'ORDER_DATE'] as const) {
        for (const vipOnly of [true, false]) check(year, await stats(year, { basis, by: 'STATUS', filter: vipOnly ? { segment: VIP } : undefined }), basis, vipOnly ? isVip : anyone, 'STATUS');
      }
    };
    await checkAll();
    const before = await stats(year, { filter: { segment: VIP } });
    const ordersOf = await query<{ id: string; external: string; email: string | null; lines: number; returns: number }>(
      app.databaseUrl,
      `select o.id, o.external_id as external, o.customer_email as email, (select count(*)::int from returns.order_line_item l where l.order_id = o.id) as lines,
              (select count(*)::int from returns.return r where r.order_id = o.id) as returns
         from returns."order" o where o.store_id = $1 order by o.external_id`,
      [acme.storeId],
    );
    const pushAgain = async (external: string, customer: Record<string, unknown>, lineItems: OrderLine[]) => {
      const [order] = await query<{ createdAt: Date; currency: string }>(app.databaseUrl, 'select created_at as "createdAt", currency from returns."order" where store_id = $1 and external_id = $2', [acme.storeId, external]);
      const res = await pushOrder(app, acme, orderBody({ id: external, currency: order!.currency, createdAt: order!.createdAt.toISOString(), customer: { ...customer, firstName: 'C' } }, lineItems));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    const linesOf = (orderId: string) =>
      query<{ id: string; quantity: number; price: string; sku: string }>(app.databaseUrl, `select external_id as id, quantity, price::text as price, sku from returns.order_line_item where order_id = $1 and removed_at is null order by position`, [orderId]);
    // A regular customer's returned order becomes vip-a's (another case): its returns and units join the segment.
    const returned = ordersOf.find((o) => o.email === 'reg@example.com' && o.returns > 0)!;
    await pushAgain(returned.external, { email: 'Vip-A@EXAMPLE.com', phoneNumber: '+15550003333' }, (await linesOf(returned.id)).map((l) => ({ ...l, title: 'Thing' })));
    // A regular customer's order without returns becomes vip-b's by phone, with one line more units and the others taken off.
    const unreturned = ordersOf.find((o) => o.email === 'reg@example.com' && o.returns === 0 && o.lines > 1)!;
    const [first] = await linesOf(unreturned.id);
    await pushAgain(unreturned.external, { email: 'reg@example.com', phoneNumber: '+15550002222' }, [{ ...first!, quantity: first!.quantity + 2, title: 'Thing' }]);
    // A VIP's returned order becomes a guest's: out of the segment.
    const leaving = ordersOf.find((o) => o.email === 'VIP-A@Example.com' && o.returns > 0 && o.id !== returned.id)!;
    await pushAgain(leaving.external, { email: 'guest@example.com' }, (await linesOf(leaving.id)).map((l) => ({ ...l, title: 'Thing' })));
    // A VIP's order without returns is deleted: its units go.
    const deleted = ordersOf.find((o) => o.email === 'vip-b@example.com' && o.returns === 0)!;
    expect((await v22(app, acme, 'DELETE', `/stores/${acme.storeId}/orders/${deleted.external}`)).status).toBe(200);
    await checkAll();
    expect(await stats(year, { filter: { segment: VIP } })).not.toEqual(before);
  });

  it('compares with the previous period: as many local days before, as many months before, else as long', async () => {
    const answer = await stats(NY_WEEK, { basis: 'ORDER_DATE', filter: { segment: VIP }, compare: true, by: 'REASON' });
    check(NY_WEEK, answer, 'ORDER_DATE', isVip, 'REASON');
    // Seven local days before: one of them 25 hours long in the window, none in the one before.
    expect(answer.previous!.from).toBe('2026-10-22T04:00:00.000Z');
    check(NY_WEEK_BEFORE, answer.previous!, 'ORDER_DATE', isVip, 'REASON');
    expect(answer.totals.returns * answer.previous!.totals.returns).toBeGreaterThan(0);
    expect(answer.previous!.previous).toBeNull();

    // Two Berlin months (March has the spring change): January and February before them.
    const months: WindowArg = { from: '2026-02-28T23:00:00Z', until: '2026-04-30T22:00:00Z', interval: 'MONTH', timeZone: 'Europe/Berlin' };
    const byMonth = await stats(months, { compare: true });
    check(months, byMonth, 'CREATED', anyone);
    const before: WindowArg = { ...months, from: '2025-12-31T23:00:00Z', until: '2026-02-28T23:00:00Z' };
    expect(byMonth.previous!.series.map((b) => b.start)).toEqual(['2025-12-31T23:00:00.000Z', '2026-01-31T23:00:00.000Z']);
    check(before, byMonth.previous!, 'CREATED', anyone);

    // Not on local midnights: the same duration before; a zone half an hour off UTC.
    const hours: WindowArg = { from: '2026-11-01T03:30:00Z', until: '2026-11-02T09:30:00Z', interval: 'HOUR', timeZone: 'Asia/Kolkata' };
    const byHour = await stats(hours, { compare: true, basis: 'ORDER_DATE' });
    check(hours, byHour, 'ORDER_DATE', anyone);
    const hoursBefore: WindowArg = { ...hours, from: '2026-10-30T21:30:00Z', until: '2026-11-01T03:30:00Z' };
    check(hoursBefore, byHour.previous!, 'ORDER_DATE', anyone);
  });

  it('refuses a bad segment naming the filter, and never shows another store', async () => {
    const res = await app.graphql(RETURN_STATS, { s: acme.storeId, w: NY_WEEK, f: { segment: { all: [{ profile: { field: 'shoeSize', operator: 'EQUALS', value: 9 } }] } } }, acme.apiSecret);
    expect(res.errors?.[0]?.extensions?.code, JSON.stringify(res.errors)).toBe('BAD_USER_INPUT');
    expect((res.errors![0]!.extensions!.errors as { pointer: string }[])[0]!.pointer).toMatch(/^\/filter\/segment/);

    const hidden = await app.graphql(RETURN_STATS, { s: acme.storeId, w: NY_WEEK, f: { segment: VIP } }, other.apiSecret);
    expect(hidden.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    // The other store's VIP (reg@example.com there) is not acme's: its answer has only its own return.
    const theirs = await app.graphql<{ returnStats: Stats }>(RETURN_STATS, { s: other.storeId, w: NY_WEEK, f: { segment: VIP }, basis: 'ORDER_DATE' }, other.apiSecret);
    expect(theirs.errors).toBeUndefined();
    expect(theirs.data!.returnStats.totals.returns).toBe(1);
  });
});
