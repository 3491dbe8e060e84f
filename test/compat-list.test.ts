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
const daysAgo = (days: number) => new Date(Date.now() - days * 86400_000).toISOString().slice(0, 10);

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
    // A window that covers the returns made 40 days ago and now (`from` alone would be the 24 hours after it).
    const window = `from=${daysAgo(45)}&to=${daysAgo(-1)}`;
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

/** Decisions section 17: what public clients send is accepted, what they read is there. */
describe('what real clients send', () => {
  const page = (account: TestAccount, params: string) => list(account, params);
  const cursorOf = (url: string | null) => (url ? new URL(url).searchParams.get('cursor') : null);

  it('continues from a cursor re-sent with the client\'s own parameters and no from/to, in the window page 1 resolved', async () => {
    const account = await app.createAccount('Cursor window');
    const { returnIds } = await seedReturns(app, account, 5);
    for (const [i, id] of returnIds.entries()) await setTimes([id], new Date(Date.now() - (i + 1) * 3600_000).toISOString());
    const first = await page(account, 'paginate=true&pageSize=2');
    // The oldest return sits exactly at the window's start page 1 resolved: a window resolved again later would miss it.
    const start = new URL(first.body.nextPageUrl).searchParams.get('from')!;
    await setTimes([returnIds[4]!], start);
    const seen: string[] = first.body.returns.map((r: { service_id: string }) => r.service_id);
    let cursor = cursorOf(first.body.nextPageUrl);
    while (cursor) {
      const next = await page(account, `paginate=true&pageSize=2&cursor=${encodeURIComponent(cursor)}`);
      expect(next.status).toBe(200);
      seen.push(...next.body.returns.map((r: { service_id: string }) => r.service_id));
      cursor = cursorOf(next.body.nextPageUrl);
    }
    expect(seen).toEqual(returnIds);
    // Without paginate, a cursor still pages (Pipedream sends only its own parameters and the cursor).
    const bare = await page(account, `pageSize=2&cursor=${encodeURIComponent(cursorOf(first.body.nextPageUrl)!)}`);
    expect(bare.body.returns.map((r: { service_id: string }) => r.service_id)).toEqual(returnIds.slice(2, 4));
  });

  it('applies a cursor under another state or filter from its position, never from the start and never outside the key\'s store', async () => {
    const account = await app.createAccount('Cursor filters');
    const { returnIds } = await seedReturns(app, account, 6);
    for (const [i, id] of returnIds.entries()) await setTimes([id], new Date(Date.now() - (i + 1) * 600_000).toISOString());
    for (const id of [returnIds[0]!, returnIds[3]!, returnIds[5]!]) await setReturnState(app, id, { status: 'flagged' });
    const first = await page(account, 'paginate=true&pageSize=1');
    expect(first.body.returns.map((r: { service_id: string }) => r.service_id)).toEqual([returnIds[1]]);
    const cursor = encodeURIComponent(cursorOf(first.body.nextPageUrl)!);
    const review = await page(account, `paginate=true&pageSize=5&state=review&cursor=${cursor}`);
    expect(review.status).toBe(200);
    expect(review.body.returns.map((r: { service_id: string }) => r.service_id)).toEqual([returnIds[3], returnIds[5]]);
    expect((await page(account, `paginate=true&filter=updated_at&cursor=${cursor}`)).status).toBe(200);
    const stranger = await app.createAccount('Cursor stranger');
    expect((await page(stranger, `paginate=true&cursor=${cursor}`)).body).toEqual({ message: 'The cursor is invalid.', errors: { cursor: ['The cursor is invalid.'] } });
  });

  it('reads paginate as PHP\'s boolean filter does', async () => {
    const account = await app.createAccount('Booleans');
    await seedReturns(app, account, 1);
    for (const value of ['true', 'True', 'TRUE', '1', 'on', 'yes']) expect(Object.keys((await page(account, `paginate=${value}`)).body), value).toEqual(['returns', 'nextPageUrl', 'previousPageUrl']);
    for (const value of ['false', 'False', '0', 'off', 'no', '']) expect(Array.isArray((await page(account, `paginate=${value}`)).body), value).toBe(true);
  });

  it('reads dates as loosely as Laravel does; from alone is the 24 hours after it, to alone the 24 hours before it', async () => {
    const account = await app.createAccount('Loose dates');
    const { returnIds } = await seedReturns(app, account, 3);
    await setTimes([returnIds[0]!], '2026-06-01T10:30:00Z');
    await setTimes([returnIds[1]!], '2026-06-02T09:00:00Z');
    await setTimes([returnIds[2]!], '2025-11-01T12:00:00Z');
    const cases: [string, string[]][] = [
      ['from=2026-6-1 0:00:00&to=2026-6-1 23:59:59', [returnIds[0]!]],
      ['from=2026-06-01 00:00:00Z&to=2026-06-01 12:00:00Z', [returnIds[0]!]],
      ['from=2026-06-01%2010:30:00.000000&to=2026-06-01T10:30:00.000%2B00:00', [returnIds[0]!]],
      ['from=2026-06-01T12:30:00 %2B02:00&to=2026-06-01T10:30:00.000Z', [returnIds[0]!]],
      ['from=2026-06-01 10:00:00', [returnIds[0]!, returnIds[1]!]],
      ['from=2026-06-01 11:00:00', [returnIds[1]!]],
      ['to=2026-06-02 11:00:00', [returnIds[1]!]],
      ['to=2026-06-02 10:00:00', [returnIds[0]!, returnIds[1]!]],
      ['from=2025-11-01', [returnIds[2]!]],
      // A zero-width window (to == from) is an empty or one-instant list, never 422.
      ['from=2026-06-01T10:30:00.000Z&to=2026-06-01T10:30:00.000Z', [returnIds[0]!]],
      ['from=2026-06-01T10:31:00.000Z&to=2026-06-01T10:31:00.000Z', []],
    ];
    for (const [params, expected] of cases) {
      const res = await list(account, params);
      expect(res.status, params).toBe(200);
      expect(ids(res.body), params).toEqual([...expected].sort());
    }
    for (const bad of ['from=yesterday', 'from=2026-13-01', 'to=2026-06-01 25:00:00', 'from=2026-06-01 10:00:00 Europe']) {
      expect((await list(account, bad)).status, bad).toBe(422);
    }
  });

  it('lists the exchange lines of an exchange return, never an empty list', async () => {
    const account = await app.createAccount('Exchanges');
    const ret = await seedReturn(app, account, {
      items: [
        { lineItemId: 'li-1', quantity: 2, reason: 'Too small', compensation: 'same_item_replacement' },
        { lineItemId: 'li-2', quantity: 1, reason: 'Broken', compensation: 'exchange' },
      ],
    });
    const details = await compat(app, account.compatKey, 'GET', `/api/v1/warehouse/return/details?return_id=${ret.numericId}`);
    expect(details.body.outcome).toBe('exchange');
    expect(details.body.exchanges).toEqual([
      { line_item_id: ret.lines['li-1'], product_id: 'prod-1', variant_id: 'var-1', sku: 'SKU-1', title: 'Shirt', quantity: 2, price: '50.00' },
      { line_item_id: ret.lines['li-2'], product_id: 'prod-2', variant_id: 'var-2', sku: 'SKU-2', title: 'Hat', quantity: 1, price: '10.00' },
    ]);
    expect(details.body.exchange_total).toBe('60.00');
    const refund = await seedReturn(app, account);
    expect((await compat(app, account.compatKey, 'GET', `/api/v1/warehouse/return/details?return_id=${refund.numericId}`)).body.exchanges).toEqual([]);
  });
});
