import { beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../platform/money.js';
import { bucketLabel, inWindow, type WindowArg } from './support/analytics.js';
import { useTestAccount, useTestApp } from './support/app.js';
import { query } from './support/database.js';
import { drained, postEvent } from './support/events.js';
import { eventually } from './support/eventually.js';
import { randomFrom } from './support/random.js';

/**
 * eventStats against a hand computation over the stored events (read back with plain SQL,
 * bucketed by Intl in the zone, counted in TypeScript).
 */

const EVENT_STATS = `query($s: ID!, $e: String!, $w: TimeWindowInput!, $sum: String, $by: String, $where: [PropertyConditionInput!]) {
  eventStats(storeId: $s, eventName: $e, window: $w, sumProperty: $sum, by: $by, where: $where) {
    totals { count uniqueCustomers sum } series { start measures { count uniqueCustomers sum } } groups { key measures { count uniqueCustomers sum } }
  }
}`;

interface Measures {
  count: number;
  uniqueCustomers: number;
  sum: number | null;
}
interface Stats {
  totals: Measures;
  series: { start: string; measures: Measures }[];
  groups: { key: string; measures: Measures }[];
}
interface Stored {
  customerId: string;
  eventName: string;
  at: Date;
  data: Record<string, unknown>;
}
interface Question {
  sum?: string;
  by?: string;
  where?: { key: string; operator: string; value?: unknown }[];
}

/** Sums exactly, as PostgreSQL's numeric does, then as a float. */
class Tally {
  count = 0;
  readonly customers = new Set<string>();
  total = new Decimal(0);

  add(e: Stored, sum: string | undefined): void {
    this.count++;
    this.customers.add(e.customerId);
    const v = sum ? e.data[sum] : undefined;
    if (typeof v === 'number') this.total = this.total.plus(v);
  }

  measures(sum: string | undefined): Measures {
    return { count: this.count, uniqueCustomers: this.customers.size, sum: sum ? this.total.toNumber() : null };
  }
}

const tally = <K>(map: Map<K, Tally>, key: K) => {
  let t = map.get(key);
  if (!t) map.set(key, (t = new Tally()));
  return t;
};

describe('eventStats', () => {
  const app = useTestApp({ EVENTS_RATE_LIMIT_PER_SECOND: '10000' });
  const acme = useTestAccount(app, 'Acme');
  const other = useTestAccount(app, 'Other');
  let stored: Stored[] = [];

  const stats = async (eventName: string, window: WindowArg, q: Question = {}, token = acme.apiSecret) => {
    const res = await app.graphql<{ eventStats: Stats }>(EVENT_STATS, { s: acme.storeId, e: eventName, w: window, sum: q.sum, by: q.by, where: q.where }, token);
    expect(res.errors, JSON.stringify(res.errors)).toBeUndefined();
    return res.data!.eventStats;
  };

  async function readBack(): Promise<void> {
    stored = await query<Stored>(
      app.databaseUrl,
      'select customer_id as "customerId", event_name as "eventName", event_timestamp as "at", data from events.custom_event where store_id = $1',
      [acme.storeId],
    );
  }

  /** The hand computation; `where` supports the EQUALS conditions the tests use. */
  function check(eventName: string, window: WindowArg, answer: Stats, q: Question = {}): void {
    const events = stored.filter((e) => e.eventName === eventName && inWindow(e.at, window) && (q.where ?? []).every((w) => e.data[w.key] === w.value));
    const series = new Map<string, Tally>();
    const groups = new Map<string, Tally>();
    const total = new Tally();
    for (const e of events) {
      tally(series, bucketLabel(e.at, window)).add(e, q.sum);
      total.add(e, q.sum);
      const v = q.by ? e.data[q.by] : undefined;
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') tally(groups, String(v)).add(e, q.sum);
    }
    const labels = answer.series.map((b) => bucketLabel(new Date(b.start), window));
    expect(new Set(labels).size).toBe(labels.length);
    expect(answer.series[0]!.start).toBe(new Date(window.from).toISOString());
    for (const key of series.keys()) expect(labels, `bucket ${key} is listed`).toContain(key);
    answer.series.forEach((b, i) => expect(b.measures, `bucket ${labels[i]}`).toEqual((series.get(labels[i]!) ?? new Tally()).measures(q.sum)));
    expect(answer.totals).toEqual(total.measures(q.sum));
    const want = [...groups]
      .map(([key, t]) => ({ key, measures: t.measures(q.sum) }))
      .sort((a, b) => b.measures.count - a.measures.count || (a.key < b.key ? -1 : 1))
      .slice(0, 50);
    expect(answer.groups).toEqual(want);
  }

  beforeAll(async () => {
    // A fixed data set around Berlin's spring change (2026-03-29) and New York's autumn one (2026-11-01).
    const random = randomFrom(2029);
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
    const at = () =>
      random() < 0.65 ? new Date(Date.parse('2026-03-26T00:00:00Z') + Math.floor(random() * 8 * 86_400_000)) : new Date(Date.parse('2026-10-30T00:00:00Z') + Math.floor(random() * 4 * 86_400_000));
    const fixed = ['2026-03-28T23:00:00Z', '2026-03-29T22:00:00Z', '2026-03-29T21:59:59.999Z', '2026-03-26T10:10:00Z', '2026-11-01T05:30:00Z', '2026-11-01T06:30:00Z'];
    const events = Array.from({ length: 400 }, (_, n) => {
      const eventName = n % 3 === 0 ? 'Placed Order' : 'Viewed Product';
      const data: Record<string, unknown> = { source: pick(['email', 'sms', 'web', 7, true]) };
      if (n % 7 === 0) delete data.source;
      data.total = n % 11 === 0 ? 'n/a' : Math.round(random() * 10_000) / 100;
      return {
        eventName,
        eventTimestamp: fixed[n % 50] ?? at().toISOString(),
        customer: { email: `c${Math.floor(random() * 25)}@example.com` },
        data,
      };
    });
    for (let i = 0; i < events.length; i += 100) {
      const res = await postEvent(app, acme, { events: events.slice(i, i + 100) }, { path: '/bulk' });
      expect(res.status).toBe(202);
    }
    const res = await postEvent(app, other, { events: [{ eventName: 'Placed Order', eventTimestamp: '2026-03-28T12:00:00Z', customer: { email: 'x@example.com' } }] }, { path: '/bulk' });
    expect(res.status).toBe(202);
    await drained(app.databaseUrl);
    await readBack();
  });

  it('counts events and distinct customers per day across Berlin\'s spring change, clipped at both ends (from the rollup and the edges)', async () => {
    const window: WindowArg = { from: '2026-03-26T10:05:00Z', until: '2026-04-02T17:45:00Z', timeZone: 'Europe/Berlin' };
    const answer = await stats('Viewed Product', window);
    expect(answer.series.map((b) => b.start)).toContain('2026-03-29T22:00:00.000Z');
    expect(answer.totals.count).toBeGreaterThan(100);
    check('Viewed Product', window, answer);
  });

  it('answers hours across New York\'s autumn change, weeks, months, and days half an hour off UTC', async () => {
    for (const window of [
      { from: '2026-10-31T20:00:00Z', until: '2026-11-02T03:00:00Z', interval: 'HOUR', timeZone: 'America/New_York' },
      { from: '2026-03-01T00:00:00Z', until: '2026-12-01T00:00:00Z', interval: 'WEEK', timeZone: 'America/New_York' },
      { from: '2026-01-15T08:00:00Z', until: '2026-12-31T00:00:00Z', interval: 'MONTH', timeZone: 'Europe/Berlin' },
      { from: '2026-03-25T00:00:00Z', until: '2026-04-04T00:00:00Z', interval: 'DAY', timeZone: 'Asia/Kolkata' },
    ] as WindowArg[]) {
      for (const name of ['Viewed Product', 'Placed Order']) check(name, window, await stats(name, window));
    }
  });

  it('sums a numeric property (other values do not count), groups by a property, filters with where', async () => {
    const window: WindowArg = { from: '2026-03-20T00:00:00Z', until: '2026-11-20T00:00:00Z', interval: 'MONTH', timeZone: 'Europe/Berlin' };
    for (const q of [{ sum: 'total' }, { by: 'source' }, { by: 'source', sum: 'total' }, { where: [{ key: 'source', operator: 'EQUALS', value: 'email' }], sum: 'total' }] as Question[]) {
      const answer = await stats('Placed Order', window, q);
      check('Placed Order', window, answer, q);
      if (q.by) expect(answer.groups.map((g) => g.key).sort()).toEqual(['7', 'email', 'sms', 'true', 'web']);
    }
    const day: WindowArg = { from: '2026-03-26T10:05:00Z', until: '2026-04-02T17:45:00Z', timeZone: 'Europe/Berlin' };
    check('Viewed Product', day, await stats('Viewed Product', day, { by: 'source', sum: 'total' }), { by: 'source', sum: 'total' });
  });

  it('follows events deleted and moved to another customer', async () => {
    const window: WindowArg = { from: '2026-03-26T00:00:00Z', until: '2026-04-03T00:00:00Z', timeZone: 'Europe/Berlin' };
    await query(app.databaseUrl, `delete from events.custom_event where id in (select id from events.custom_event where store_id = $1 and event_name = 'Viewed Product' order by id limit 20)`, [acme.storeId]);
    await query(
      app.databaseUrl,
      `update events.custom_event set customer_id = (select min(customer_id) from events.custom_event where store_id = $1)
        where id in (select id from events.custom_event where store_id = $1 and event_name = 'Viewed Product' order by id desc limit 30)`,
      [acme.storeId],
    );
    await readBack();
    check('Viewed Product', window, await stats('Viewed Product', window));
    const [leftover] = await query<{ n: number }>(app.databaseUrl, 'select count(*)::int as n from events.event_stat where events <= 0');
    expect(leftover!.n).toBe(0);
  });

  it('reads whole local days from the day rollup once built in the store\'s zone, with the same answers; rebuilds it when the zone changes', { timeout: 60_000 }, async () => {
    const setZone = async (timeZone: string) => {
      const res = await app.graphql(`mutation($s: ID!, $z: String) { updateStore(storeId: $s, input: {timeZone: $z}) { storeId } }`, { s: acme.storeId, z: timeZone }, acme.apiSecret);
      expect(res.errors).toBeUndefined();
    };
    const pin = async () => (await query<{ zone: string; ready: boolean }>(app.databaseUrl, 'select time_zone as zone, ready from events.event_stat_day_zone where store_id = $1', [acme.storeId]))[0];
    const windows = (timeZone: string): WindowArg[] => [
      { from: '2026-03-26T10:05:00Z', until: '2026-04-02T17:45:00Z', timeZone },
      { from: '2026-03-01T00:00:00Z', until: '2026-12-01T00:00:00Z', interval: 'WEEK', timeZone },
      { from: '2026-01-15T08:00:00Z', until: '2026-12-31T00:00:00Z', interval: 'MONTH', timeZone },
      // Between local midnights by DAY (the day rollup alone, one day per bucket), across Berlin's spring change.
      timeZone === 'Europe/Berlin'
        ? { from: '2026-03-24T23:00:00Z', until: '2026-04-01T22:00:00Z', interval: 'DAY', timeZone }
        : { from: '2026-03-25T04:00:00Z', until: '2026-04-02T04:00:00Z', interval: 'DAY', timeZone },
    ];
    const checkAll = async (timeZone: string) => {
      for (const window of windows(timeZone)) for (const name of ['Viewed Product', 'Placed Order']) check(name, window, await stats(name, window));
    };

    await setZone('Europe/Berlin');
    // The first daily question in the store's zone queues the build and is answered from the hourly rollup.
    await checkAll('Europe/Berlin');
    await eventually(async () => ((await pin())?.ready && (await pin())?.zone === 'Europe/Berlin' ? true : undefined), 'the day rollup in Berlin');
    const [rows] = await query<{ n: number }>(app.databaseUrl, 'select count(*)::int as n from events.event_stat_day where store_id = $1', [acme.storeId]);
    expect(rows!.n).toBeGreaterThan(0);
    await checkAll('Europe/Berlin');

    // Kept by the triggers: new events, deletions and moves to another customer.
    await postEvent(app, acme, { events: [{ eventName: 'Viewed Product', eventTimestamp: '2026-03-29T21:30:00Z', customer: { email: 'late@example.com' } }] }, { path: '/bulk' });
    await drained(app.databaseUrl);
    await query(app.databaseUrl, `delete from events.custom_event where id in (select id from events.custom_event where store_id = $1 and event_name = 'Placed Order' order by id limit 10)`, [acme.storeId]);
    await query(
      app.databaseUrl,
      `update events.custom_event set customer_id = (select max(customer_id) from events.custom_event where store_id = $1)
        where id in (select id from events.custom_event where store_id = $1 and event_name = 'Placed Order' order by id desc limit 10)`,
      [acme.storeId],
    );
    await readBack();
    await checkAll('Europe/Berlin');
    const [leftover] = await query<{ n: number }>(app.databaseUrl, 'select count(*)::int as n from events.event_stat_day where events <= 0');
    expect(leftover!.n).toBe(0);

    // Another zone: answered from the hourly rollup until the days are counted again there.
    await setZone('America/New_York');
    await checkAll('America/New_York');
    await eventually(async () => ((await pin())?.zone === 'America/New_York' && (await pin())?.ready ? true : undefined), 'the day rollup in New York');
    await checkAll('America/New_York');
    await checkAll('Europe/Berlin');
  });

  it('lists the store\'s event names', async () => {
    const res = await app.graphql<{ eventNames: string[] }>('query($s: ID!) { eventNames(storeId: $s) }', { s: acme.storeId }, acme.apiSecret);
    expect(res.data?.eventNames).toEqual(['Placed Order', 'Viewed Product']);
  });

  it('refuses bad arguments naming them, and hides other accounts\' stores', async () => {
    const window: WindowArg = { from: '2026-03-26T00:00:00Z', until: '2026-04-03T00:00:00Z' };
    const pointer = async (vars: Record<string, unknown>) => {
      const res = await app.graphql(EVENT_STATS, { s: acme.storeId, e: 'Placed Order', w: window, ...vars }, acme.apiSecret);
      expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      return (res.errors![0]!.extensions!.errors as { pointer: string }[])[0]!.pointer;
    };
    expect(await pointer({ w: { ...window, timeZone: 'Atlantis/Capital' } })).toBe('/window/timeZone');
    expect(await pointer({ w: { ...window, until: window.from } })).toBe('/window/until');
    expect(await pointer({ w: { ...window, interval: 'HOUR', until: '2026-06-01T00:00:00Z' } })).toBe('/window');
    expect(await pointer({ by: '' })).toBe('/by');
    expect(await pointer({ where: [{ key: 'total', operator: 'GREATER_THAN', value: 'lots' }] })).toBe('/where/0/value');
    const hidden = await app.graphql(EVENT_STATS, { s: acme.storeId, e: 'Placed Order', w: window }, other.apiSecret);
    expect(hidden.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});
