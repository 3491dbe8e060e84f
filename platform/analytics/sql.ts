import type { Conditions } from '../db/keyset.js';
import { Decimal, money, type Money } from '../money.js';
import type { Window } from './time-window.js';
import { ROLLUP_SLOT_MS, splitBySlots, type Range } from './time-window.js';

/**
 * SQL pieces the analytics reads share: which bucket a row falls in, and the time ranges a
 * read covers (a rollup's whole slots, the rows' raw edges), each as parameters.
 */

const iso = (ms: number) => new Date(ms).toISOString();

/** `width_bucket` over the window's inner edges: 0 for the first bucket, 1 for the second, ... */
export function bucketOf(c: Conditions, window: Window): (column: string) => string {
  // Bound at first use: a statement that never buckets a column (whole days read from a day
  // rollup) must not carry a parameter it does not mention, whose type PostgreSQL cannot infer.
  let edges: string | undefined;
  return (column) => `width_bucket(${column}, ${(edges ??= c.p(window.starts.slice(1).map(iso), 'timestamptz[]'))})`;
}

/** A FROM item of the ranges, `r(lo, hi)`, to join rows on `column >= r.lo and column < r.hi`. */
export function rangesFrom(c: Conditions, ranges: readonly Range[]): string {
  return `unnest(${c.p(ranges.map((r) => iso(r[0])), 'timestamptz[]')}, ${c.p(ranges.map((r) => iso(r[1])), 'timestamptz[]')}) as r(lo, hi)`;
}

/**
 * Where a read over `window` (narrowed to [lo, hi) by a filter) finds its rows: the whole hours
 * of a rollup that lie inside one bucket, and the rows themselves for the rest. `perBucket`
 * false reads the window as one span (groups need no series). `rawOnly` reads everything from
 * the rows (a filter the rollup cannot apply).
 */
export function readRanges(window: Window, options: { perBucket: boolean; rawOnly?: boolean; lo?: number; hi?: number }): { slots: Range[]; raw: Range[] } {
  const lo = Math.max(window.from, options.lo ?? -Infinity);
  const hi = Math.min(window.until, options.hi ?? Infinity);
  if (lo >= hi) return { slots: [], raw: [] };
  if (options.rawOnly) return { slots: [], raw: [[lo, hi]] };
  const edges = options.perBucket ? window.edges : [window.from, window.until];
  return splitBySlots(
    edges.map((e) => Math.min(Math.max(e, lo), hi)),
    ROLLUP_SLOT_MS,
  );
}

/** Amounts per currency, as the API shows them: rounded to the currency's minor unit, zeros left out, by currency code. */
export function moneyList(amounts: ReadonlyMap<string, Decimal>): Money[] {
  return [...amounts.entries()]
    .filter(([, amount]) => !amount.isZero())
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([currency, amount]) => money(amount, currency));
}

/** Adds an amount (a decimal string from SQL) to a currency's running total. */
export function addMoney(totals: Map<string, Decimal>, currency: string, amount: string | null): void {
  if (amount === null) return;
  totals.set(currency, (totals.get(currency) ?? new Decimal(0)).plus(amount));
}

/** The `count` largest groups, then by key: what every `groups` list shows. */
export const MAX_GROUPS = 50;

export function topGroups<T extends { key: string }>(groups: Iterable<T>, size: (g: T) => number): T[] {
  return [...groups].sort((a, b) => size(b) - size(a) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).slice(0, MAX_GROUPS);
}
