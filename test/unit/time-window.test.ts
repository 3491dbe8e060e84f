import { describe, expect, it } from 'vitest';
import { resolveWindow, TimeInterval, type TimeWindowInput } from '../../platform/analytics/time-window.input.js';
import { bucketStarts, splitBySlots, wallAt, type Interval } from '../../platform/analytics/time-window.js';
import { isAppError } from '../../platform/errors.js';
import { seededRandom } from '../support/random.js';

const t = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const starts = (from: string, until: string, interval: Interval, zone: string) => bucketStarts(t(from), t(until), interval, zone).map(iso);

describe('bucket starts', () => {
  it('cuts UTC days, clipping the first and last bucket to the window', () => {
    expect(starts('2026-03-01T06:00:00Z', '2026-03-03T12:00:00Z', 'DAY', 'UTC')).toEqual(['2026-03-01T06:00:00.000Z', '2026-03-02T00:00:00.000Z', '2026-03-03T00:00:00.000Z']);
  });

  it('gives Berlin a 23-hour day when summer time starts and a 25-hour day when it ends', () => {
    expect(starts('2026-03-27T23:00:00Z', '2026-03-30T22:00:00Z', 'DAY', 'Europe/Berlin')).toEqual(['2026-03-27T23:00:00.000Z', '2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z']);
    expect(starts('2026-10-24T22:00:00Z', '2026-10-26T23:00:00Z', 'DAY', 'Europe/Berlin')).toEqual(['2026-10-24T22:00:00.000Z', '2026-10-25T23:00:00.000Z']);
  });

  it('gives New York real hours across both changes: one local hour skipped, one repeated', () => {
    // 2026-03-08: 02:00 EST becomes 03:00 EDT.
    expect(starts('2026-03-08T06:00:00Z', '2026-03-08T09:00:00Z', 'HOUR', 'America/New_York')).toEqual(['2026-03-08T06:00:00.000Z', '2026-03-08T07:00:00.000Z', '2026-03-08T08:00:00.000Z']);
    expect(starts('2026-03-08T06:00:00Z', '2026-03-08T09:00:00Z', 'HOUR', 'America/New_York').map((s) => wallAt(Date.parse(s), 'America/New_York').hour)).toEqual([1, 3, 4]);
    // 2026-11-01: 02:00 EDT becomes 01:00 EST, so 01:00 happens twice, as two buckets.
    expect(starts('2026-11-01T05:00:00Z', '2026-11-01T07:00:00Z', 'HOUR', 'America/New_York')).toEqual(['2026-11-01T05:00:00.000Z', '2026-11-01T06:00:00.000Z']);
    expect(starts('2026-10-31T04:00:00Z', '2026-11-03T05:00:00Z', 'DAY', 'America/New_York')).toEqual([
      '2026-10-31T04:00:00.000Z',
      '2026-11-01T04:00:00.000Z',
      '2026-11-02T05:00:00.000Z',
    ]);
  });

  it('starts weeks on Monday and months on the 1st, in the zone', () => {
    // Wednesday 2026-03-04 in Berlin; the next Mondays are the 9th and the 16th (then still winter time).
    expect(starts('2026-03-04T10:00:00Z', '2026-03-20T00:00:00Z', 'WEEK', 'Europe/Berlin')).toEqual(['2026-03-04T10:00:00.000Z', '2026-03-08T23:00:00.000Z', '2026-03-15T23:00:00.000Z']);
    expect(starts('2026-02-15T00:00:00Z', '2026-05-01T00:00:00Z', 'MONTH', 'America/New_York')).toEqual(['2026-02-15T00:00:00.000Z', '2026-03-01T05:00:00.000Z', '2026-04-01T04:00:00.000Z']);
    expect(starts('2026-12-20T00:00:00Z', '2027-02-10T00:00:00Z', 'MONTH', 'UTC')).toEqual(['2026-12-20T00:00:00.000Z', '2027-01-01T00:00:00.000Z', '2027-02-01T00:00:00.000Z']);
  });

  it('cuts days at half past in a zone half an hour off UTC', () => {
    expect(starts('2026-06-01T00:00:00Z', '2026-06-03T00:00:00Z', 'DAY', 'Asia/Kolkata')).toEqual(['2026-06-01T00:00:00.000Z', '2026-06-01T18:30:00.000Z', '2026-06-02T18:30:00.000Z']);
  });

  it('starts a day at the jump when its midnight is skipped (Santiago changes clocks at midnight)', () => {
    // 2026-09-06 00:00 -04 does not exist in America/Santiago: 23:59:59 on the 5th is followed by 01:00 on the 6th.
    const days = bucketStarts(t('2026-09-04T12:00:00Z'), t('2026-09-08T12:00:00Z'), 'DAY', 'America/Santiago');
    for (const start of days.slice(1)) {
      const wall = wallAt(start, 'America/Santiago');
      const before = wallAt(start - 1000, 'America/Santiago');
      expect(before.day).not.toBe(wall.day);
    }
    expect(days.map((d) => wallAt(d, 'America/Santiago').day)).toEqual([4, 5, 6, 7, 8]);
  });

  it('keeps every property across zones, intervals and random windows', () => {
    const random = seededRandom();
    const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'America/St_Johns', 'Pacific/Chatham', 'America/Santiago'];
    for (let n = 0; n < 200; n++) {
      const zone = zones[Math.floor(random() * zones.length)]!;
      const interval = (['HOUR', 'DAY', 'WEEK', 'MONTH'] as const)[Math.floor(random() * 4)]!;
      const from = t('2025-01-01T00:00:00Z') + Math.floor(random() * 700 * 86_400_000);
      const span = { HOUR: 3 * 86_400_000, DAY: 60 * 86_400_000, WEEK: 200 * 86_400_000, MONTH: 900 * 86_400_000 }[interval];
      const until = from + 1 + Math.floor(random() * span);
      const list = bucketStarts(from, until, interval, zone);
      expect(list[0]).toBe(from);
      for (let i = 1; i < list.length; i++) {
        const start = list[i]!;
        expect(start).toBeGreaterThan(list[i - 1]!);
        expect(start).toBeLessThan(until);
        const wall = wallAt(start, zone);
        const before = wallAt(start - 1000, zone);
        if (interval === 'HOUR') {
          expect(start - list[i - 1]!).toBeLessThanOrEqual(3_600_000);
        } else {
          // A bucket starts on the first instant of its local date; the instant before it is another date.
          expect(before.day === wall.day && before.month === wall.month).toBe(false);
          if (interval === 'MONTH') expect(wall.day).toBe(1);
          if (interval === 'WEEK') expect(new Date(Date.UTC(wall.year, wall.month - 1, wall.day)).getUTCDay()).toBe(1);
        }
      }
    }
  });
});

describe('windows', () => {
  const window = (input: Partial<TimeWindowInput>): TimeWindowInput => ({ from: new Date('2026-03-01T00:00:00Z'), until: new Date('2026-03-02T00:00:00Z'), ...input });
  const pointerOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (err) {
      if (isAppError(err)) return { type: err.type, pointer: err.errors?.[0]?.pointer };
      throw err;
    }
    return undefined;
  };

  it('defaults to days in the store zone, else UTC', () => {
    expect(resolveWindow(window({}), null)).toMatchObject({ interval: 'DAY', timeZone: 'UTC' });
    expect(resolveWindow(window({}), 'Europe/Berlin').timeZone).toBe('Europe/Berlin');
    expect(resolveWindow(window({ timeZone: 'Asia/Tokyo' }), 'Europe/Berlin').timeZone).toBe('Asia/Tokyo');
  });

  it('names the argument at fault', () => {
    expect(pointerOf(() => resolveWindow(window({ timeZone: 'Mars/Olympus' }), null))).toEqual({ type: 'invalid_data', pointer: '/window/timeZone' });
    expect(pointerOf(() => resolveWindow(window({ until: new Date('2026-03-01T00:00:00Z') }), null))).toEqual({ type: 'invalid_data', pointer: '/window/until' });
    expect(pointerOf(() => resolveWindow(window({ until: new Date('2026-02-01T00:00:00Z') }), null))).toEqual({ type: 'invalid_data', pointer: '/window/until' });
  });

  it('takes 1,000 buckets and refuses 1,001', () => {
    const from = new Date('2026-01-01T00:00:00Z');
    expect(resolveWindow(window({ from, until: new Date(from.getTime() + 1000 * 3_600_000), interval: TimeInterval.HOUR }), null).starts).toHaveLength(1000);
    expect(pointerOf(() => resolveWindow(window({ from, until: new Date(from.getTime() + 1001 * 3_600_000), interval: TimeInterval.HOUR }), null))).toEqual({
      type: 'invalid_data',
      pointer: '/window',
    });
  });
});

describe('rollup slots', () => {
  const H = 3_600_000;
  it('reads whole hours inside a bucket from the rollup and the clipped edges from the rows', () => {
    expect(splitBySlots([0.5 * H, 24 * H, 48 * H, 50.25 * H], H)).toEqual({
      slots: [[1 * H, 50 * H]],
      raw: [
        [0.5 * H, 1 * H],
        [50 * H, 50.25 * H],
      ],
    });
  });

  it('reads from the rows the hour that a bucket boundary cuts', () => {
    expect(splitBySlots([0, 18.5 * H, 42.5 * H], H)).toEqual({
      slots: [
        [0, 18 * H],
        [19 * H, 42 * H],
      ],
      raw: [
        [18 * H, 19 * H],
        [42 * H, 42.5 * H],
      ],
    });
    expect(splitBySlots([10, 20], H)).toEqual({ slots: [], raw: [[10, 20]] });
  });
});
