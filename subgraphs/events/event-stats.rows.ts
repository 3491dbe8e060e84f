import { bucketOf, MAX_GROUPS, rangesFrom, readRanges } from '../../platform/analytics/sql.js';
import { bucketStart, nextBucketStart, wallAt, type Window } from '../../platform/analytics/time-window.js';
import { Conditions } from '../../platform/db/keyset.js';
import { heavySql, type HeavyReads } from '../../platform/db/replica.js';
import { SegmentCompiler, type PropertyCondition } from './segments/segment.rules.js';

/**
 * The reads behind `eventStats`. Count and distinct customers alone come from the rollups: per
 * store-local day (`event_stat_day`, one row per customer and day) for the whole days of a daily,
 * weekly or monthly window in the store's pinned zone, else per hour (`event_stat`, one row per
 * customer and hour) for the whole hours, and from the events for the edges; anything that looks
 * inside an event (`where`, `by`, `sumProperty`) is answered from the events themselves, over the
 * (store, event name, time) index.
 */


export interface EventSums {
  count: number;
  customers: number;
  sum: number | null;
}

export interface EventStatRows {
  /** By the bucket's index in the window. */
  buckets: Map<number, EventSums>;
  totals: EventSums;
  groups: (EventSums & { key: string })[];
}

export interface EventQuestion {
  where?: PropertyCondition[];
  by?: string;
  sumProperty?: string;
}

const NONE: EventSums = { count: 0, customers: 0, sum: null };

/**
 * The whole local days of a window (its first local midnight at or after `from` to its last at or
 * before `until`), each with its date and the index of the bucket that holds it (a daily, weekly or
 * monthly bucket holds whole days).
 */
function wholeDays(window: Window): { from: number; until: number; dates: string[]; buckets: number[] } {
  const zone = window.timeZone;
  const first = bucketStart(window.from, 'DAY', zone);
  const from = first === window.from ? first : nextBucketStart(first, 'DAY', zone);
  const until = bucketStart(window.until, 'DAY', zone);
  const dates: string[] = [];
  const buckets: number[] = [];
  let bucket = 0;
  for (let day = from; day < until; day = nextBucketStart(day, 'DAY', zone)) {
    while (bucket + 1 < window.starts.length && window.starts[bucket + 1]! <= day) bucket++;
    const w = wallAt(day, zone);
    dates.push(`${w.year}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`);
    buckets.push(bucket);
  }
  return { from, until: Math.max(from, until), dates, buckets };
}

export class EventStatsReads {
  constructor(private readonly reads: HeavyReads) {}

  /** `dayZone`: the zone the store's day rollup is ready in (null: none, or not ready). */
  async stats(storeId: string, eventName: string, window: Window, question: EventQuestion, dayZone: string | null = null): Promise<EventStatRows> {
    return question.where?.length || question.by !== undefined || question.sumProperty !== undefined
      ? this.fromEvents(storeId, eventName, window, question)
      : this.fromRollup(storeId, eventName, window, dayZone);
  }

  /** Count and distinct customers per bucket, and distinct customers over the window. */
  private async fromRollup(storeId: string, eventName: string, window: Window, dayZone: string | null): Promise<EventStatRows> {
    const c = new Conditions();
    const [store, name] = [c.p(storeId), c.p(eventName)];
    const bucket = bucketOf(c, window);
    const branches: string[] = [];
    // Whole local days from the day rollup when its zone is the window's and buckets are whole days.
    const days = window.interval !== 'HOUR' && dayZone === window.timeZone ? wholeDays(window) : undefined;
    let ranges = readRanges(window, { perBucket: true });
    if (days?.dates.length) {
      branches.push(`select d.bucket, s.customer_id, s.events as n
        from unnest(${c.p(days.dates, 'date[]')}, ${c.p(days.buckets, 'int[]')}) as d(day, bucket)
        join event_stat_day s on s.store_id = ${store} and s.event_name = ${name} and s.day = d.day`);
      // The hours and rows of the window's edges, outside its whole days.
      const before = readRanges(window, { perBucket: true, hi: days.from });
      const after = readRanges(window, { perBucket: true, lo: days.until });
      ranges = { slots: [...before.slots, ...after.slots], raw: [...before.raw, ...after.raw] };
    }
    const { slots, raw } = ranges;
    if (slots.length) {
      branches.push(`select ${bucket('s.slot')} as bucket, s.customer_id, s.events as n
        from ${rangesFrom(c, slots)} join event_stat s on s.store_id = ${store} and s.event_name = ${name} and s.slot >= r.lo and s.slot < r.hi`);
    }
    if (raw.length) {
      branches.push(`select ${bucket('e.event_timestamp')} as bucket, e.customer_id, 1 as n
        from ${rangesFrom(c, raw)} join custom_event e on e.store_id = ${store} and e.event_name = ${name} and e.event_timestamp >= r.lo and e.event_timestamp < r.hi`);
    }
    // Per bucket and customer first: a bucket's distinct customers are then its rows, the window's a
    // second grouping. A day rollup row is one customer's day: when it is all that is read and each
    // bucket is one day (a DAY window between local midnights, the dashboards' usual question), its
    // rows are per bucket and customer already, and the grouping that would find so is left out.
    const onePerDay = !!days?.dates.length && branches.length === 1 && new Set(days.buckets).size === days.buckets.length;
    const per = onePerDay ? branches[0]! : `select bucket, customer_id, sum(n) as n from (${branches.join(' union all ')}) t group by bucket, customer_id`;
    const rows = await heavySql<{ bucket: number; count: number; customers: number }>(this.reads, `with per as materialized (${per})
       select bucket, sum(n)::float8 as count, count(*)::int as customers from per group by bucket
       union all
       select -1, 0, count(*)::int from (select customer_id from per group by customer_id) w`,
      c.params,
    );
    const buckets = new Map<number, EventSums>();
    let totals = NONE;
    for (const row of rows) {
      if (row.bucket < 0) totals = { ...totals, customers: row.customers };
      else buckets.set(row.bucket, { count: row.count, customers: row.customers, sum: null });
    }
    totals = { ...totals, count: [...buckets.values()].reduce((n, b) => n + b.count, 0) };
    return { buckets, totals, groups: [] };
  }

  /** Everything from the events of the window: those meeting `where`, grouped by `by`, summing `sumProperty`. */
  private async fromEvents(storeId: string, eventName: string, window: Window, question: EventQuestion): Promise<EventStatRows> {
    const compiler = new SegmentCompiler(storeId);
    const where = compiler.eventProperties(question.where ?? [], 'e', '/where');
    compiler.check('A where condition is invalid.');
    const c = new Conditions(compiler.params);
    const bucket = bucketOf(c, window);
    const scalar = (key: string) => `case when jsonb_typeof(e.data -> ${key}) in ('string', 'number', 'boolean') then e.data ->> ${key} end`;
    const key = question.by === undefined ? 'null::text' : scalar(c.p(question.by, 'text'));
    const sumKey = question.sumProperty === undefined ? undefined : c.p(question.sumProperty, 'text');
    const value = sumKey ? `case when jsonb_typeof(e.data -> ${sumKey}) = 'number' then (e.data -> ${sumKey})::numeric end` : 'null::numeric';
    const sums = `count(*)::float8 as count, count(distinct customer_id)::int as customers, ${sumKey ? 'coalesce(sum(value), 0)::float8' : 'null::float8'} as sum`;
    const rows = await heavySql<EventSums & { kind: 'bucket' | 'total' | 'group'; bucket: number | null; key: string | null }>(this.reads, `with t as materialized (
         select ${bucket('e.event_timestamp')} as bucket, ${key} as key, e.customer_id, ${value} as value
           from custom_event e
          where e.store_id = $1 and e.event_name = ${c.p(eventName)} and e.event_timestamp >= ${c.p(new Date(window.from).toISOString(), 'timestamptz')}
            and e.event_timestamp < ${c.p(new Date(window.until).toISOString(), 'timestamptz')} and ${where})
       select 'bucket' as kind, bucket, null as key, ${sums} from t group by bucket
       union all
       select 'total', null, null, ${sums} from t
       union all
       (select 'group', null, key, ${sums} from t where key is not null group by key order by count(*) desc, key limit ${MAX_GROUPS})`,
      c.params,
    );
    const buckets = new Map<number, EventSums>();
    let totals: EventSums = { ...NONE, sum: sumKey ? 0 : null };
    const groups: EventStatRows['groups'] = [];
    for (const { kind, bucket: index, key: groupKey, count, customers, sum } of rows) {
      if (kind === 'bucket') buckets.set(index!, { count, customers, sum });
      else if (kind === 'total') totals = { count, customers, sum };
      else groups.push({ key: groupKey!, count, customers, sum });
    }
    return { buckets, totals, groups };
  }

  /** The store's event names, alphabetically: a skip over the rollup's key, one index probe per name. */
  async eventNames(storeId: string): Promise<string[]> {
    const rows = await heavySql<{ name: string }>(this.reads, `with recursive names(name) as (
         (select event_name from event_stat where store_id = $1 order by event_name limit 1)
         union all
         select (select s.event_name from event_stat s where s.store_id = $1 and s.event_name > names.name order by s.event_name limit 1) from names where names.name is not null
       ) select name from names where name is not null`,
      [storeId],
    );
    return rows.map((r) => r.name);
  }
}
