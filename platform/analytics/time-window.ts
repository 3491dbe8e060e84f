/**
 * The bucket arithmetic every analytics query shares (decisions section 18): a window
 * [from, until) cut at the interval's boundaries in an IANA time zone (weeks start on
 * Monday), daylight-saving correct, the first and last buckets clipped to the window.
 * Pure: Intl alone knows the zones, so the database never needs its own zone rules.
 */

export type Interval = 'HOUR' | 'DAY' | 'WEEK' | 'MONTH';

/** A checked window: its buckets' starts (the first is `from`) and the zone they were cut in. */
export interface Window {
  from: number;
  until: number;
  interval: Interval;
  timeZone: string;
  starts: number[];
  /** Every bucket start, then `until`. */
  edges: number[];
}

/** More buckets than this is a request for rows, not a chart. */
export const MAX_BUCKETS = 1000;

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

export interface Wall {
  year: number;
  /** 1 to 12. */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The wall-clock time in `zone` at instant `t` (whole seconds). */
export function wallAt(t: number, zone: string): Wall {
  const parts: Record<string, string> = {};
  for (const p of formatter(zone).formatToParts(t)) parts[p.type] = p.value;
  const year = Number(parts.year);
  return {
    year: parts.era === 'BC' || parts.era === 'B' ? 1 - year : year,
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

/** A wall-clock time as if it were UTC, in ms (comparable, and differences are durations). */
export function wallMs(w: Wall): number {
  const d = new Date(0);
  // setUTCFullYear, not Date.UTC: the latter maps years 0-99 to 1900-1999.
  d.setUTCFullYear(w.year, w.month - 1, w.day);
  d.setUTCHours(w.hour, w.minute, w.second, 0);
  return d.getTime();
}

/** The zone's offset from UTC at instant `t`, in ms. */
function offsetAt(t: number, zone: string): number {
  const whole = Math.floor(t / 1000) * 1000;
  return wallMs(wallAt(whole, zone)) - whole;
}

/**
 * The first instant whose wall-clock time in `zone` is at or after the wall time `w`
 * (ms as if UTC): the start of a local day, week or month. Where `w` is skipped by a
 * daylight-saving jump, that is the instant of the jump; where it happens twice, the first.
 */
export function firstInstantAtOrAfter(w: number, zone: string): number {
  const before = w - offsetAt(w - 1.5 * DAY_MS, zone);
  const after = w - offsetAt(w + 1.5 * DAY_MS, zone);
  const valid = [before, after].filter((c) => wallMs(wallAt(c, zone)) === w);
  if (valid.length) return Math.min(...valid);
  // A gap: the local clock jumps over `w` somewhere between the two candidates.
  let lo = Math.min(before, after);
  let hi = Math.max(before, after);
  while (hi - lo > 1000) {
    const mid = Math.floor((lo + hi) / 2000) * 1000;
    if (wallMs(wallAt(mid, zone)) >= w) hi = mid;
    else lo = mid;
  }
  return hi;
}

function addDays(w: Wall, days: number): Wall {
  const d = new Date(wallMs({ ...w, hour: 0, minute: 0, second: 0 }) + days * DAY_MS);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(), hour: 0, minute: 0, second: 0 };
}

/** The local date that starts the interval containing the local date `w`. */
function intervalDate(w: Wall, interval: Exclude<Interval, 'HOUR'>): Wall {
  const date = { ...w, hour: 0, minute: 0, second: 0 };
  if (interval === 'MONTH') return { ...date, day: 1 };
  if (interval === 'WEEK') {
    const weekday = new Date(wallMs(date)).getUTCDay(); // 0 = Sunday
    return addDays(date, -((weekday + 6) % 7));
  }
  return date;
}

/** The start of the bucket that holds instant `t`. */
export function bucketStart(t: number, interval: Interval, zone: string): number {
  const wall = wallAt(t, zone);
  if (interval === 'HOUR') return t - ((wall.minute * 60 + wall.second) * 1000 + (((t % 1000) + 1000) % 1000));
  return firstInstantAtOrAfter(wallMs(intervalDate(wall, interval)), zone);
}

/** The start of the bucket after the one that starts at `start`. */
export function nextBucketStart(start: number, interval: Interval, zone: string): number {
  if (interval === 'HOUR') {
    const next = start + HOUR_MS;
    // A zone whose offset moved by part of an hour realigns to its next whole local hour.
    const aligned = bucketStart(next, 'HOUR', zone);
    return aligned > start ? aligned : next;
  }
  const date = intervalDate(wallAt(start, zone), interval);
  const following = interval === 'MONTH' ? (date.month === 12 ? { ...date, year: date.year + 1, month: 1 } : { ...date, month: date.month + 1 }) : addDays(date, interval === 'WEEK' ? 7 : 1);
  return firstInstantAtOrAfter(wallMs(following), zone);
}

export class TooManyBuckets extends Error {}

/**
 * The buckets' starts, ascending: the first is `from` (clipped), each later one an
 * interval boundary in `zone` before `until`. Throws TooManyBuckets past MAX_BUCKETS.
 */
export function bucketStarts(from: number, until: number, interval: Interval, zone: string): number[] {
  const starts = [from];
  for (let next = nextBucketStart(bucketStart(from, interval, zone), interval, zone); next < until; next = nextBucketStart(next, interval, zone)) {
    if (starts.length === MAX_BUCKETS) throw new TooManyBuckets();
    starts.push(next);
  }
  return starts;
}

/** A time range [start, end), ms. */
export type Range = readonly [start: number, end: number];

function pushRange(ranges: Range[], start: number, end: number): void {
  if (start >= end) return;
  const last = ranges[ranges.length - 1];
  if (last && last[1] === start) ranges[ranges.length - 1] = [last[0], end];
  else ranges.push([start, end]);
}

/**
 * Splits a window's buckets (`edges`: every bucket start, then `until`) for a rollup
 * kept in slots of `slotMs` aligned on the epoch: `slots` covers the whole slots
 * that lie inside one bucket (read from the rollup), `raw` the rest (read from the
 * rows: the clipped edges, and bucket boundaries that fall inside a slot, as in
 * zones half an hour off UTC).
 */
export function splitBySlots(edges: readonly number[], slotMs: number): { slots: Range[]; raw: Range[] } {
  const slots: Range[] = [];
  const raw: Range[] = [];
  for (let i = 0; i + 1 < edges.length; i++) {
    const [a, b] = [edges[i]!, edges[i + 1]!];
    const first = Math.ceil(a / slotMs) * slotMs;
    const last = Math.floor(b / slotMs) * slotMs;
    if (first >= last) {
      pushRange(raw, a, b);
      continue;
    }
    pushRange(raw, a, first);
    pushRange(slots, first, last);
    pushRange(raw, last, b);
  }
  return { slots, raw };
}

export const ROLLUP_SLOT_MS = HOUR_MS;

/** The instant `t` moved by `months` and `days` on the wall clock of `zone` (a day past a month's end is its last; a skipped wall time moves to the jump). */
function shiftWall(t: number, zone: string, months: number, days: number): number {
  const w = wallAt(t, zone);
  const index = w.year * 12 + (w.month - 1) + months;
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  const date = addDays({ ...w, year, month, day: Math.min(w.day, daysInMonth(year, month)) }, days);
  return firstInstantAtOrAfter(wallMs({ ...date, hour: w.hour, minute: w.minute, second: w.second }), zone);
}

function daysInMonth(year: number, month: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, month, 0);
  return d.getUTCDate();
}

const isMidnight = (t: number, zone: string) => {
  const w = wallAt(t, zone);
  return t % 1000 === 0 && w.hour === 0 && w.minute === 0 && w.second === 0;
};

/**
 * The period just before a window, of the same length on the calendar of its zone: a window of
 * whole local months (both ends on a 1st's midnight) is preceded by as many months, one of whole
 * local days by as many days (a day of 23 or 25 hours counts as a day), any other by the same
 * duration. [previousFrom, from) is what `compareTo: PREVIOUS_PERIOD` answers for.
 */
export function previousPeriod(window: Pick<Window, 'from' | 'until' | 'timeZone'>): { from: number; until: number } {
  const { from, until, timeZone: zone } = window;
  if (isMidnight(from, zone) && isMidnight(until, zone)) {
    const a = wallAt(from, zone);
    const b = wallAt(until, zone);
    if (a.day === 1 && b.day === 1) {
      const months = b.year * 12 + b.month - (a.year * 12 + a.month);
      return { from: shiftWall(from, zone, -months, 0), until: from };
    }
    const days = Math.round((wallMs(b) - wallMs(a)) / DAY_MS);
    return { from: shiftWall(from, zone, 0, -days), until: from };
  }
  return { from: from - (until - from), until: from };
}
