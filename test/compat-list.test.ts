import { describe, expect, it } from 'vitest';
import { useTestApp, type TestAccount } from './support/app.js';
import { compat, seedReturn, setReturnState } from './support/compat.js';
import { query } from './support/database.js';
import { seedReturns } from './support/returns.js';

/** GET /warehouse/return/list and the ASN report: windows, states, formats, Loop's cursor pagination. */
const app = useTestApp();

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function setTimes(returnIds: string[], createdAt: string, updatedAt = createdAt): Promise<void> {
  await query(app.databaseUrl, 'update returns.return set created_at = $2, updated_at = $3 where id = any($1)', [returnIds, createdAt, updatedAt]);
}

async function list(account: TestAccount, params: string, prefix = '/api/v1') {
  return compat(app, account.compatKey, 'GET', `${prefix}/warehouse/return/list${params ? `?${params}` : ''}`);
}

const ids = (body: { service_id: string }[]) => body.map((r) => r.service_id).sort();

describe('windows', () => {
  it('defaults to the last 24 hours, as a bare array of list-formatted returns', async () => {
    const account = await app.createAccount('Default window');
    const { returnIds } = await seedReturns(app, account, 2);
    await setTimes([returnIds[1]!], new Date(Date.now() - 25 * 3600_000).toISOString());
    const res = await list(account, '');
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(ids(res.body)).toEqual([returnIds[0]]);
    const [ret] = res.body;
    expect(ret.created_at).toMatch(ISO_MS);
    expect(ret.updated_at).toMatch(ISO_MS);
    expect(ret.line_items[0].returned_at).toMatch(ISO_MS);
    expect(typeof ret.id).toBe('number');
    expect(typeof ret.order_id).toBe('number');
    expect(typeof ret.line_items[0].line_item_id).toBe('number');
  });

  it('reads from/to as YYYY-MM-DD, YYYY-MM-DD HH:MM:SS and ISO 8601, UTC when zoneless; a date-only to covers its whole day', async () => {
    const account = await app.createAccount('Formats');
    const { returnIds } = await seedReturns(app, account, 4);
    await setTimes([returnIds[0]!], '2026-06-01T10:30:00Z');
    await setTimes([returnIds[1]!], '2026-06-01T23:59:59.900Z');
    await setTimes([returnIds[2]!], '2026-06-02T00:00:00Z');
    await setTimes([returnIds[3]!], '2026-05-31T23:59:59.999Z');
    const cases: [string, string[]][] = [
      ['from=2026-06-01&to=2026-06-01', [returnIds[0]!, returnIds[1]!]],
      ['from=2026-06-01 10:00:00&to=2026-06-01 11:00:00', [returnIds[0]!]],
      ['from=2026-06-01 10:30:00&to=2026-06-01 10:30:00', [returnIds[0]!]],
      ['from=2026-06-01T10:00:00Z&to=2026-06-02T00:00:00Z', [returnIds[0]!, returnIds[1]!, returnIds[2]!]],
      ['from=2026-06-01T12:00:00%2B02:00&to=2026-06-01T12:31:00%2B02:00', [returnIds[0]!]],
      ['from=2026-06-01T10:00:00.000Z&to=2026-06-01T10:29:59.999Z', []],
      ['from=2026-05-31&to=2026-06-01 00:00:00', [returnIds[3]!]],
    ];
    for (const [params, expected] of cases) {
      const res = await list(account, params);
      expect(res.status, params).toBe(200);
      expect(ids(res.body), params).toEqual([...expected].sort());
    }
  });

  it('caps the window at 120 days and refuses bad dates, filters and states in the Laravel shape', async () => {
    const account = await app.createAccount('Caps');
    expect((await list(account, 'from=2026-01-01&to=2026-04-30')).status).toBe(200);
    const cases: [string, unknown][] = [
      ['from=2026-01-01&to=2026-05-01', { message: 'The date range between from and to may not be greater than 120 days.', errors: { from: ['The date range between from and to may not be greater than 120 days.'] } }],
      ['from=yesterday', { message: 'The from field must be a valid date.', errors: { from: ['The from field must be a valid date.'] } }],
      ['from=2026-02-30&to=nope', { message: 'The from field must be a valid date. (and 1 more error)', errors: { from: ['The from field must be a valid date.'], to: ['The to field must be a valid date.'] } }],
      ['from=2026-06-02&to=2026-06-01', { message: 'The to field must be a date after or equal to from.', errors: { to: ['The to field must be a date after or equal to from.'] } }],
      ['filter=shipped_at', { message: 'The selected filter is invalid.', errors: { filter: ['The selected filter is invalid.'] } }],
      ['state=pending', { message: 'The selected state is invalid.', errors: { state: ['The selected state is invalid.'] } }],
      ['paginate=true&pageSize=751', { message: 'The page size field must not be greater than 750.', errors: { pageSize: ['The page size field must not be greater than 750.'] } }],
      ['paginate=true&pageSize=0', { message: 'The page size field must be at least 1.', errors: { pageSize: ['The page size field must be at least 1.'] } }],
      ['pageSize=ten', { message: 'The page size field must be an integer.', errors: { pageSize: ['The page size field must be an integer.'] } }],
      ['paginate=maybe', { message: 'The paginate field must be true or false.', errors: { paginate: ['The paginate field must be true or false.'] } }],
      ['paginate=true&cursor=garbage', { message: 'The cursor is invalid.', errors: { cursor: ['The cursor is invalid.'] } }],
      ['paginate=true&cursor=n.abc.def', { message: 'The cursor is invalid.', errors: { cursor: ['The cursor is invalid.'] } }],
    ];
    for (const [params, body] of cases) {
      const res = await list(account, params);
      expect(res.status, params).toBe(422);
      expect(res.body, params).toEqual(body);
    }
    expect((await list(account, 'paginate=true&pageSize=750')).status).toBe(200);
  });

  it('filters on updated_at when asked', async () => {
    const account = await app.createAccount('Updated');
    const { returnIds } = await seedReturns(app, account, 2);
    await setTimes([returnIds[0]!], '2026-03-01T10:00:00Z', '2026-06-01T10:00:00Z');
    await setTimes([returnIds[1]!], '2026-06-01T10:00:00Z', '2026-06-01T10:00:00Z');
    expect(ids((await list(account, 'from=2026-06-01&to=2026-06-01&filter=updated_at')).body)).toEqual([...returnIds].sort());
    expect(ids((await list(account, 'from=2026-06-01&to=2026-06-01&filter=created_at')).body)).toEqual([returnIds[1]]);
    expect(ids((await list(account, 'from=2026-06-01&to=2026-06-01')).body)).toEqual([returnIds[1]]);
  });

  it('takes one state; by default lists open, closed and expired returns', async () => {
    const account = await app.createAccount('States');
    const made = await Promise.all(Array.from({ length: 6 }, () => seedReturn(app, account)));
    const [open, review, closed, cancelled, expired, shipped] = made.map((r) => r.id) as [string, string, string, string, string, string];
    await setReturnState(app, review, { status: 'flagged' });
    await setReturnState(app, closed, { status: 'complete' });
    await setReturnState(app, cancelled, { status: 'deleted' });
    await setReturnState(app, expired, { createdDaysAgo: 40 });
    await setReturnState(app, shipped, { createdDaysAgo: 40, shipmentRecorded: true });
    const window = 'from=2026-09-01';
    const cases: [string, string[]][] = [
      ['', [open, closed, expired, shipped]],
      ['&state=open', [open, shipped]],
      ['&state=review', [review]],
      ['&state=closed', [closed]],
      ['&state=cancelled', [cancelled]],
      ['&state=expired', [expired]],
    ];
    for (const [params, expected] of cases) {
      const res = await list(account, `${window}${params}`);
      expect(res.status, params).toBe(200);
      expect(ids(res.body), params).toEqual([...expected].sort());
    }
    const states = (await list(account, window)).body.map((r: { service_id: string; state: string }) => [r.service_id, r.state]);
    expect(Object.fromEntries(states)).toEqual({ [open]: 'open', [closed]: 'closed', [expired]: 'expired', [shipped]: 'open' });
  });

  it("shows only the key's store", async () => {
    const mine = await app.createAccount('Mine');
    const theirs = await app.createAccount('Theirs');
    await seedReturns(app, theirs, 2);
    expect((await list(mine, '')).body).toEqual([]);
  });
});

describe('pagination', () => {
  it('walks every page with absolute next links carrying every parameter, and back with previous links', async () => {
    const account = await app.createAccount('Pages');
    const { returnIds } = await seedReturns(app, account, 7);
    // Two share a creation time: the id breaks the tie.
    await setTimes([returnIds[2]!, returnIds[3]!], new Date(Date.now() - 3600_000).toISOString());
    const first = await list(account, 'paginate=true&pageSize=3&state=open&filter=created_at', '/api/2026-07');
    expect(first.status).toBe(200);
    expect(Object.keys(first.body)).toEqual(['returns', 'nextPageUrl', 'previousPageUrl']);
    expect(first.body.previousPageUrl).toBeNull();
    const next = new URL(first.body.nextPageUrl);
    expect(`${next.origin}${next.pathname}`).toBe(`${app.baseUrl}/api/2026-07/warehouse/return/list`);
    expect(Object.fromEntries(next.searchParams)).toMatchObject({ filter: 'created_at', state: 'open', paginate: 'true', pageSize: '3' });
    expect(next.searchParams.get('from')).toMatch(ISO_MS);
    expect(next.searchParams.get('to')).toMatch(ISO_MS);
    expect(next.searchParams.get('cursor')).toBeTruthy();

    const pages: string[][] = [first.body.returns.map((r: { service_id: string }) => r.service_id)];
    const urls: string[] = [];
    let url: string | null = first.body.nextPageUrl;
    while (url) {
      urls.push(url);
      const page = await compat(app, account.compatKey, 'GET', url);
      expect(page.status).toBe(200);
      pages.push(page.body.returns.map((r: { service_id: string }) => r.service_id));
      expect(page.body.previousPageUrl).not.toBeNull();
      url = page.body.nextPageUrl;
    }
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(pages.flat().sort()).toEqual([...returnIds].sort());

    // Back from the last page: the same pages, in reverse.
    const last = await compat(app, account.compatKey, 'GET', urls[urls.length - 1]!);
    const back: string[][] = [];
    let previous: string | null = last.body.previousPageUrl;
    while (previous) {
      const page = await compat(app, account.compatKey, 'GET', previous);
      back.push(page.body.returns.map((r: { service_id: string }) => r.service_id));
      expect(page.body.nextPageUrl).not.toBeNull();
      previous = page.body.previousPageUrl;
    }
    expect(back).toEqual([pages[1], pages[0]]);
  });

  it('neither skips nor repeats a return when returns are created while a client pages', async () => {
    const account = await app.createAccount('Inserts');
    const { returnIds } = await seedReturns(app, account, 9, 20);
    // Spread over the window, so that later inserts land before, between and after the pages.
    for (const [i, id] of returnIds.entries()) await setTimes([id], new Date(Date.now() - (i + 1) * 600_000).toISOString());
    const window = `from=${encodeURIComponent(new Date(Date.now() - 12 * 3600_000).toISOString())}&to=${encodeURIComponent(new Date(Date.now() + 3600_000).toISOString())}`;
    let res = await list(account, `paginate=true&pageSize=2&${window}`);
    const seen: string[] = [];
    const inserted: string[] = [];
    for (;;) {
      seen.push(...res.body.returns.map((r: { service_id: string }) => r.service_id));
      if (!res.body.nextPageUrl) break;
      // One new return now (newest: before every page), one placed in the middle of the window.
      const more = await seedReturns(app, account, 2);
      await setTimes([more.returnIds[1]!], new Date(Date.now() - 45 * 60_000).toISOString());
      inserted.push(...more.returnIds);
      res = await compat(app, account.compatKey, 'GET', res.body.nextPageUrl);
      expect(res.status).toBe(200);
    }
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of returnIds) expect(seen).toContain(id);
    expect(seen.filter((id) => !returnIds.includes(id)).every((id) => inserted.includes(id))).toBe(true);
  });

  it('lists without pagination as one bare array, the next links carry the default window explicitly', async () => {
    const account = await app.createAccount('Bare');
    await seedReturns(app, account, 3);
    const bare = await list(account, 'paginate=false');
    expect(bare.body).toHaveLength(3);
    const paged = await list(account, 'paginate=1&pageSize=2');
    const next = new URL(paged.body.nextPageUrl);
    expect(next.searchParams.get('from')).toBeTruthy();
    expect(next.searchParams.get('to')).toBeTruthy();
    expect(next.searchParams.get('paginate')).toBe('true');
  });
});

describe('ASN report', () => {
  it('lists one row per returned item of the returns created in the last 7 days by default', async () => {
    const account = await app.createAccount('ASN');
    const recent = await seedReturn(app, account);
    const old = await seedReturn(app, account);
    await setReturnState(app, old.id, { createdDaysAgo: 8 });
    await query(app.databaseUrl, `update returns.return set shipment = '{"carrier":"UPS","tracker":"1Z9","status":"in_transit"}', shipment_recorded = true where id = $1`, [recent.id]);
    const res = await compat(app, account.compatKey, 'GET', '/api/v1/warehouse/reporting/asn');
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    const [row] = res.body;
    expect(row).toMatchObject({
      id: recent.numericId,
      order_id: recent.orderNumericId,
      order_name: recent.orderName,
      state: 'open',
      customer_email: 'ada@example.com',
      title: 'Shirt',
      sku: 'SKU-1',
      purchase_price: '25.00',
      carrier: 'UPS',
      tracking_number: '1Z9',
      label_status: 'in_transit',
      return_reason: 'Too small',
      outcome: 'refund',
      currency: 'USD',
      closed_at: null,
    });
    expect(typeof row.return_line_item_id).toBe('string');
    expect(row.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const wider = await compat(app, account.compatKey, 'GET', `/api/v1/warehouse/reporting/asn?from=${new Date(Date.now() - 10 * 86400_000).toISOString().slice(0, 10)}`);
    expect(wider.body).toHaveLength(4);
    const invalid = await compat(app, account.compatKey, 'GET', '/api/v1/warehouse/reporting/asn?from=2025-01-01&to=2026-01-01');
    expect(invalid.status).toBe(422);
  });
});
