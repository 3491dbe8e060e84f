import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from '../support/app.js';
import { compat } from '../support/compat.js';
import { daysAgo, parseQsl, requestsQuery, seedBulk, seedEveryState, setTimes, type PythonValue, type StateReturn } from '../support/clients.js';

/**
 * Replay of the Meltano SDK tap (ChintanpatelTH/tap-loopreturns):
 * tap_loopreturns/client.py walks from the start date (or the state's
 * `updated_at`) to now in windows of `backfill_interval` days (5 in its
 * meltano.yml), each window's first request with `from` and `to` as naive
 * `isoformat()`, `paginate=True` (Python's `str(True)`), `pageSize=100`,
 * `filter=updated_at`, sent by `requests`; a next page re-sends
 * `dict(parse_qsl(...))` of the body's `nextPageUrl` (the SDK's JSONPath
 * paginator, which stops on a null token and fails on a token it saw just
 * before). tap_loopreturns/streams.py reads `$.returns[*]` with `updated_at`
 * as its replication key. The SDK fails the sync on any 4xx.
 */

type Rec = Record<string, unknown>;
const PAGE_SIZE = 100;

const app = useTestApp();
const account = useTestAccount(app, 'Meltano');

/** `datetime.isoformat()` of a naive UTC datetime at whole seconds. */
const isoformat = (ms: number) => new Date(ms).toISOString().slice(0, 19);

/** One window of RESTStream.get_records: pages until the paginator has no token. */
async function windowRecords(from: string, to: string): Promise<{ records: Rec[]; pages: number }> {
  const records: Rec[] = [];
  let params: Record<string, PythonValue> = { from, to, paginate: true, pageSize: PAGE_SIZE, filter: 'updated_at' };
  let previous: string | null = null;
  let pages = 0;
  for (;;) {
    const res = await compat(app, account.compatKey, 'GET', `${app.baseUrl}/api/v1/warehouse/return/list?${requestsQuery(params)}`);
    if (res.status >= 400 && res.status < 500) throw new Error(`FatalAPIError: ${res.status} Client Error: ${res.text}`);
    pages++;
    records.push(...((res.body as { returns: Rec[] }).returns ?? []));
    const token = (res.body as { nextPageUrl?: string | null }).nextPageUrl ?? null;
    if (!token) break;
    if (token === previous) throw new Error(`Loop detected in pagination. Pagination token ${token} is identical to prior token.`);
    previous = token;
    params = parseQsl(token);
  }
  return { records, pages };
}

/** LoopReturnsStream.get_records: the windows, and the state written after each. */
async function sync(config: { start_date: string; backfill_interval: number }, state: { updated_at?: string }) {
  const emitted = new Map<string, Rec>();
  let maxPages = 0;
  const now = Math.floor(Date.now() / 1000) * 1000;
  let min = Date.parse(`${state.updated_at ?? config.start_date}Z`);
  while (min < now) {
    const max = Math.min(min + config.backfill_interval * 86_400_000, now);
    const { records, pages } = await windowRecords(isoformat(min), isoformat(max));
    for (const record of records) emitted.set(record.service_id as string, record);
    maxPages = Math.max(maxPages, pages);
    state.updated_at = isoformat(max);
    min = max;
  }
  return { emitted, maxPages };
}

let made: StateReturn[];
let bulk: string[];
beforeAll(async () => {
  made = await seedEveryState(app, account);
  // More than one page (100) in a single window, updated 12 days ago.
  bulk = await seedBulk(app, account, PAGE_SIZE + 5);
  await setTimes(app, bulk, daysAgo(40), daysAgo(12));
  // Updated across the walk; states that do not depend on age keep theirs.
  const updated: Record<string, number> = { complete: 25, rejected: 19, deleted: 8, flagged: 3, in_transit: 33 };
  for (const ret of made) if (ret.status in updated && !ret.exchanged) await setTimes(app, [ret.id], daysAgo(60), daysAgo(updated[ret.status]!));
});

describe('Meltano tap-loopreturns, unchanged', () => {
  it('syncs every window from its start date, following nextPageUrl with the parameters it carries', async () => {
    const start = daysAgo(35);
    const config = { start_date: `${start.toISOString().slice(0, 10)}T00:00:00`, backfill_interval: 5 };
    const state: { updated_at?: string } = {};
    const { emitted, maxPages } = await sync(config, state);
    expect(maxPages).toBe(2);
    // Loop's default states (open, closed, expired) of every return updated since the start date.
    const expected = [...made.filter((r) => ['open', 'closed', 'expired'].includes(r.state)).map((r) => r.id), ...bulk];
    expect([...emitted.keys()].sort()).toEqual(expected.sort());
    for (const record of emitted.values()) expect(typeof record.updated_at).toBe('string');

    expect(state.updated_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
  });

  it('resumes from the updated_at its state holds', async () => {
    const state = { updated_at: daysAgo(13).toISOString().slice(0, 19) };
    const { emitted } = await sync({ start_date: '2020-01-01T00:00:00', backfill_interval: 5 }, state);
    const old = made.filter((r) => r.status === 'complete' || r.status === 'rejected' || r.status === 'in_transit').map((r) => r.id);
    expect(bulk.every((id) => emitted.has(id))).toBe(true);
    expect(old.some((id) => emitted.has(id))).toBe(false);
  });
});
