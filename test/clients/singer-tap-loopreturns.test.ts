import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from '../support/app.js';
import { compat } from '../support/compat.js';
import { daysAgo, quote, seedEveryState, setTimes, type StateReturn } from '../support/clients.js';

/**
 * Replay of the Singer tap (singer-io/tap-loopreturns):
 * tap_loopreturns/loop.py builds `.../warehouse/return/list?from=<quote(bookmark)>&filter=created_at`
 * (plus a raw `&to=<end_date>` when one is configured), sends `X-Authorization`
 * and `Content-Type: application/json`, calls `raise_for_status()` and reads a
 * bare JSON array. tap_loopreturns/streams.py keeps a `created_at` bookmark:
 * raised to the newest record, then to the 24 hours after the run's start
 * while that is in the past, written as `%Y-%m-%d %H:%M:%SZ`
 * (`2023-06-01 00:00:00Z`). tap_loopreturns/sync.py transforms each record
 * against schemas/returns.json, and a record that does not fit fails the run.
 */

// The types schemas/returns.json gives the fields the tap reads (Singer's Transformer: str() of anything, float() of numbers).
const STRING = ['id', 'state', 'created_at', 'order_id', 'order_name', 'provider_order_id', 'order_number', 'customer', 'currency', 'carrier', 'tracking_number', 'label_status', 'label_updated_at'];
const NUMBER = ['return_product_total', 'return_discount_total', 'return_tax_total', 'return_total', 'return_credit_total', 'exchange_total', 'gift_card', 'handling_fee', 'refund', 'upsell'];
const LINE_STRING = ['line_item_id', 'provider_line_item_id', 'product_id', 'variant_id', 'sku', 'title', 'returned_at', 'exchange_variant', 'return_reason', 'parent_return_reason'];
const LINE_NUMBER = ['price', 'discount', 'tax', 'refund'];
const EXCHANGE_STRING = ['exchange_id', 'product_id', 'variant_id', 'sku', 'title'];
const EXCHANGE_NUMBER = ['price', 'discount', 'tax', 'total'];

type Rec = Record<string, unknown>;

/** Whether Singer's Transformer turns `record` into the schema's types: nullable strings and numbers, arrays of objects. */
function transformFails(record: Rec, strings: string[], numbers: string[]): string[] {
  const failures: string[] = [];
  for (const key of numbers) {
    const v = record[key];
    if (v === undefined || v === null || v === '') continue;
    if (typeof v !== 'number' && !(typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v.replace(/,/g, ''))))) failures.push(key);
  }
  for (const key of strings) if (key in record && typeof record[key] === 'object' && record[key] !== null) failures.push(key);
  return failures;
}

function transform(record: Rec): string[] {
  const failures = transformFails(record, STRING, NUMBER);
  for (const [list, strings, numbers] of [['line_items', LINE_STRING, LINE_NUMBER], ['exchanges', EXCHANGE_STRING, EXCHANGE_NUMBER]] as const) {
    const items = record[list];
    if (items === null || items === undefined) continue;
    if (!Array.isArray(items)) failures.push(list);
    else for (const item of items as Rec[]) failures.push(...transformFails(item, strings, numbers).map((f) => `${list}.${f}`));
  }
  return failures;
}

/** dateutil's parse as `utils.strptime_with_tz` uses it (a naive value is UTC), to the millisecond. */
const parse = (value: string) => new Date(/[zZ]|[+-]\d{2}:?\d{2}$/.test(value) ? value.replace(' ', 'T') : `${value.replace(' ', 'T')}Z`).getTime();
const bookmarkText = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')}Z`;

const app = useTestApp({ COMPAT_RATE_LIMIT_PER_MINUTE: '100000' });
const account = useTestAccount(app, 'Singer');

interface Config {
  start_date: string;
  end_date?: string;
}

/** One run of the tap: one request, the records it emits, the state it writes. */
async function run(config: Config, state: { bookmark?: string }): Promise<Rec[]> {
  const bookmark = state.bookmark ?? config.start_date;
  let url = `${app.baseUrl}/api/v1/warehouse/return/list?from=${quote(bookmark)}&filter=created_at`;
  // The end date goes in unquoted; requests only escapes what cannot be sent (a space becomes %20).
  if (config.end_date !== undefined) url += `&to=${encodeURI(config.end_date)}`;
  const res = await compat(app, account.compatKey, 'GET', url, undefined, { 'Content-Type': 'application/json' });
  if (res.status >= 400) throw new Error(`HTTPError: ${res.status} for url ${url}: ${res.text}`);
  const records = res.body as Rec[];
  let current = parse(bookmark);
  for (const record of records) {
    const failures = transform(record);
    if (failures.length) throw new Error(`SchemaMismatch on ${String(record.id)}: ${failures.join(', ')}`);
    current = Math.max(current, parse(record.created_at as string));
  }
  const start = parse(bookmark);
  const end = config.end_date !== undefined ? Math.max(parse(config.end_date), start) : start + 86_400_000;
  if (current < end && end < Date.now()) current = end;
  state.bookmark = bookmarkText(current);
  return records;
}

let made: StateReturn[];
beforeAll(async () => {
  made = await seedEveryState(app, account);
  // Spread over the last four months; states that do not depend on age keep theirs wherever they sit.
  const at: Record<string, number> = { complete: 125, rejected: 100, deleted: 90, flagged: 70, in_transit: 60, delivered: 29 };
  for (const ret of made) if (ret.status in at && !ret.exchanged) await setTimes(app, [ret.id], daysAgo(at[ret.status]!));
});

describe('Singer tap-loopreturns, unchanged', () => {
  it('without an end date, walks from a start date four months back to now, one day per run (from alone is the 24 hours after it)', async () => {
    const start = daysAgo(127);
    const config = { start_date: `${start.toISOString().slice(0, 10)}T00:00:00Z` };
    const state: { bookmark?: string } = {};
    const emitted = new Map<string, Rec>();
    let runs = 0;
    for (;;) {
      const before = state.bookmark;
      for (const record of await run(config, state)) emitted.set(record.service_id as string, record);
      runs++;
      if (state.bookmark === before) break;
      expect(state.bookmark).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z$/);
    }
    expect(runs).toBeGreaterThan(120);
    // Loop's default states: open, closed and expired.
    const expected = made.filter((r) => ['open', 'closed', 'expired'].includes(r.state)).map((r) => r.id);
    expect([...emitted.keys()].sort()).toEqual(expected.sort());
    const exchange = emitted.get(made.find((r) => r.exchanged)!.id)!;
    expect((exchange.exchanges as Rec[]).length).toBe(2);
  });

  it('with an end date, backfills the window between the start date and it in one request', async () => {
    const config = { start_date: `${daysAgo(110).toISOString().slice(0, 10)}T00:00:00Z`, end_date: `${daysAgo(50).toISOString().slice(0, 10)} 00:00:00` };
    const state: { bookmark?: string } = {};
    const records = await run(config, state);
    expect(records.map((r) => r.service_id)).toEqual([made.find((r) => r.status === 'in_transit')!.id, made.find((r) => r.status === 'rejected')!.id]);
    expect(state.bookmark).toBe(`${config.end_date}Z`);
    // The next run starts from that bookmark, with the space and the Z the tap writes.
    const next = await run(config, state);
    expect(next.every((r) => parse(r.created_at as string) >= parse(config.end_date))).toBe(true);
  });
});
