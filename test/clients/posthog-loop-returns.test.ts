import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from '../support/app.js';
import { compat } from '../support/compat.js';
import { daysAgo, requestsQuery, seedBulk, seedEveryState, setTimes, type PythonValue, type StateReturn } from '../support/clients.js';

/**
 * Replay of PostHog's Loop Returns warehouse source
 * (PostHog/posthog, products/warehouse_sources/backend/temporal/data_imports/sources/loop_returns/:
 * loop_returns.py and settings.py), Python `requests` with `X-Authorization`.
 * The credential probe lists the last hour (`paginate=true`, `pageSize=1`):
 * 2xx is a good key, 401/403 a bad one, and a failed probe falls back to
 * `GET /destinations`. A returns sync walks windows of at most 120 days,
 * oldest first, once per state (open, closed, cancelled, expired, review),
 * 250 a page; a next page re-sends all of its own parameters plus the
 * `cursor` of the body's `nextPageUrl` (it never follows the URL) and stops
 * on a null link, a link without a cursor or a repeated cursor. Timestamps
 * are `%Y-%m-%dT%H:%M:%S.000Z`; an incremental sync starts at its watermark,
 * and a watermark at (or past) now makes `to == from`. Rows are
 * `returns` keyed by `id`; the ASN report is a bare array keyed by `id` and
 * `return_line_item_id`, walked in the same windows without filter or state.
 */

type Rec = Record<string, unknown>;
const MAX_WINDOW_DAYS = 120;
const PAGE_SIZE = 250;
const STATES = ['open', 'closed', 'cancelled', 'expired', 'review'] as const;
const DAY = 86_400_000;

const app = useTestApp();
const account = useTestAccount(app, 'PostHog');

/** `_format_datetime`: UTC with milliseconds and `Z`. */
const format = (ms: number) => new Date(ms).toISOString();

async function get(path: string, params: Record<string, PythonValue>, key = account.compatKey) {
  const query = requestsQuery(params);
  return compat(app, key, 'GET', `${app.baseUrl}/api/v1${path}${query ? `?${query}` : ''}`);
}

/** `probe_endpoint`: one cheap request; 2xx is good, 401/403 a rejected key. */
async function probe(endpoint: 'returns' | 'destinations', key: string): Promise<{ ok: boolean; error?: string }> {
  const now = Date.now();
  const res =
    endpoint === 'returns'
      ? await get('/warehouse/return/list', { from: format(now - 3600_000), to: format(now), paginate: 'true', pageSize: 1 }, key)
      : await get('/destinations', {}, key);
  if (res.status >= 200 && res.status < 300) return { ok: true };
  if (res.status === 401 || res.status === 403) return { ok: false, error: `Loop rejected the API key for ${endpoint}` };
  return { ok: false, error: `Loop returned HTTP ${res.status} for ${endpoint}` };
}

/** `validate_credentials`: the returns probe, else the destinations one. */
async function validateCredentials(key: string) {
  const returns = await probe('returns', key);
  if (returns.ok) return returns;
  return (await probe('destinations', key)).ok ? { ok: true } : returns;
}

/** `next_cursor`: the `cursor` of the body's nextPageUrl, or null on the last page. */
function nextCursor(body: unknown): string | null {
  const url = (body as { nextPageUrl?: unknown } | null)?.nextPageUrl;
  if (typeof url !== 'string' || !url) return null;
  return new URL(url).searchParams.get('cursor') || null;
}

/** `LoopReturnsPaginator` driving the source to the end: state passes, then windows, then cursor pages. */
async function walk(config: { path: string; paginate: boolean; states: readonly string[]; filter?: string }, start: number, end: number) {
  const rows: Rec[] = [];
  const requests: Record<string, PythonValue>[] = [];
  for (const state of config.states.length ? config.states : [undefined]) {
    let windowStart = start;
    for (;;) {
      const windowEnd = Math.min(windowStart + MAX_WINDOW_DAYS * DAY, Math.max(end, windowStart));
      let cursor: string | null = null;
      let previous: string | null = null;
      for (;;) {
        const params: Record<string, PythonValue> = { from: format(windowStart), to: format(windowEnd), filter: config.filter, state, ...(config.paginate ? { paginate: 'true', pageSize: PAGE_SIZE, cursor } : {}) };
        requests.push(params);
        const res = await get(config.path, params);
        expect(res.status, JSON.stringify(params)).toBe(200);
        rows.push(...(config.paginate ? (res.body as { returns: Rec[] }).returns : (res.body as Rec[])));
        const next = config.paginate ? nextCursor(res.body) : null;
        if (next === null || next === previous) break;
        previous = cursor = next;
      }
      if (windowEnd >= end) break;
      windowStart = windowEnd;
    }
  }
  return { rows, requests };
}

const RETURNS = { path: '/warehouse/return/list', paginate: true, states: STATES };
const ASN = { path: '/warehouse/reporting/asn', paginate: false, states: [] };

let made: StateReturn[];
let bulk: string[];
beforeAll(async () => {
  made = await seedEveryState(app, account);
  // More open returns than one page (250) in the newest window.
  bulk = await seedBulk(app, account, PAGE_SIZE + 6);
  await setTimes(app, bulk, daysAgo(10));
  // Spread over more than two windows; states that do not depend on age keep theirs.
  const at: Record<string, number> = { complete: 230, rejected: 130, deleted: 121, flagged: 119, in_review: 2, in_transit: 60 };
  for (const ret of made) if (ret.status in at && !ret.exchanged) await setTimes(app, [ret.id], daysAgo(at[ret.status]!), daysAgo(at[ret.status]! - 1));
});

describe('PostHog Loop Returns source, unchanged', () => {
  it('validates the key: the returns probe passes a good key; a bad one fails both probes', async () => {
    expect(await validateCredentials(account.compatKey)).toEqual({ ok: true });
    expect(await validateCredentials('not-a-key')).toEqual({ ok: false, error: 'Loop rejected the API key for returns' });
    // The destinations table is not served: its permission check reads a rejected scope, not an outage.
    expect(await probe('destinations', account.compatKey)).toEqual({ ok: false, error: 'Loop rejected the API key for destinations' });
  });

  it('a full sync walks every state over 120-day windows and 250-row pages, and lands every return once', async () => {
    const now = Date.now();
    const { rows, requests } = await walk({ ...RETURNS, filter: 'created_at' }, now - 250 * DAY, now);
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.size).toBe(made.length + bulk.length);
    expect(new Set(rows.map((r) => r.service_id))).toEqual(new Set([...made.map((r) => r.id), ...bulk]));
    for (const ret of made) expect(rows.find((r) => r.service_id === ret.id)!.state, ret.status).toBe(ret.state);
    expect(requests.some((p) => p.cursor)).toBe(true);
    expect(new Set(requests.map((p) => p.state))).toEqual(new Set(STATES));
  });

  it('an incremental sync on updated_at starts at its watermark; a watermark at or past now is an empty zero-width window', async () => {
    const now = Date.now();
    const watermark = daysAgo(3).getTime();
    const { rows } = await walk({ ...RETURNS, filter: 'updated_at' }, watermark, now);
    const old = made.filter((r) => ['complete', 'rejected', 'deleted', 'flagged', 'in_transit'].includes(r.status)).map((r) => r.id);
    expect(rows.some((r) => old.includes(r.service_id as string))).toBe(false);
    expect(rows.some((r) => r.service_id === made.find((m) => m.status === 'in_review')!.id)).toBe(true);

    const ahead = Math.max(now, ...rows.map((r) => Date.parse(r.updated_at as string))) + 60_000;
    for (const end of [ahead, now]) {
      const zero = await walk({ ...RETURNS, filter: 'updated_at' }, ahead, end);
      expect(zero.requests.every((p) => p.from === p.to)).toBe(true);
      expect(zero.rows).toEqual([]);
    }
  });

  it('the ASN report walks the same windows and keys every row by id and return_line_item_id', async () => {
    const now = Date.now();
    const { rows, requests } = await walk(ASN, now - 250 * DAY, now);
    expect(requests.every((p) => p.filter === undefined && p.state === undefined)).toBe(true);
    const keys = new Set(rows.map((r) => `${String(r.id)}/${String(r.return_line_item_id)}`));
    expect(keys.size).toBe(rows.length);
    expect(rows.length).toBe(made.length * 2 + bulk.length);
  });
});
