import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from './support/app.js';
import { query } from './support/database.js';

/** Seeds returns straight into the returns schema (the list is what is under test here). */
async function seedReturns(app: TestApp, storeId: string, count: number, sameTimestamp = false): Promise<string[]> {
  const orderId = `ord_seed_${storeId}`;
  await query(
    app.databaseUrl,
    `insert into returns."order" (id, store_id, provider, external_id, name, currency) values ($1, $2, 'custom', $1, '#1001', 'USD') on conflict do nothing`,
    [orderId, storeId],
  );
  const rows = await query<{ id: string }>(
    app.databaseUrl,
    `insert into returns.return (id, store_id, order_id, status, updated_at)
     select 'ret_seed_' || $1 || '_' || lpad(i::text, 5, '0'), $1, $2, 'open',
            case when $4 then timestamptz '2026-01-01T00:00:00Z' else timestamptz '2026-01-01T00:00:00Z' + (i % 37) * interval '1 second' end
       from generate_series(1, $3) i returning id`,
    [storeId, orderId, count, sameTimestamp],
  );
  return rows.map((r) => r.id);
}

describe('pagination on GET /v2.2/stores/{storeId}/returns', () => {
  let app: TestApp;
  let acme: TestAccount;
  let other: TestAccount;
  let ids: string[];
  beforeAll(async () => {
    app = await startTestApp({ LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' });
    acme = await app.createAccount('Acme');
    other = await app.createAccount('Other');
    ids = await seedReturns(app, acme.storeId, 103);
    await seedReturns(app, other.storeId, 5);
  });
  afterAll(async () => {
    await app?.stop();
  });

  const list = (qs: string, headers: Record<string, string> = {}, account = acme) =>
    app.request(`/v2.2/stores/${account.storeId}/returns${qs}`, { token: account.apiSecret, headers });

  it('answers an empty store with {returns: [], orders: []} and no X-Page-Next', async () => {
    const fresh = await app.createAccount('Empty');
    const res = await list('', {}, fresh);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ returns: [], orders: [] });
    expect(res.headers.get('x-page-next')).toBeNull();
  });

  it('uses 20 as the default page size', async () => {
    const res = await list('');
    expect((await res.json()).returns).toHaveLength(20);
    expect(res.headers.get('x-page-next')).toBeTruthy();
  });

  it('walks every page once, newest update first, without skipping or repeating', async () => {
    const seen: string[] = [];
    const updatedAt: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await list(`?page-size=7${cursor ? `&page-continue=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      const body = await res.json();
      seen.push(...body.returns.map((r: { id: string }) => r.id));
      updatedAt.push(...body.returns.map((r: { updatedAt: string }) => r.updatedAt));
      cursor = res.headers.get('x-page-next');
      pages++;
    } while (cursor);
    expect(pages).toBe(Math.ceil(103 / 7));
    expect(new Set(seen).size).toBe(103);
    expect([...seen].sort()).toEqual([...ids].sort());
    expect([...updatedAt].sort().reverse()).toEqual(updatedAt);
  });

  it('keeps the walk exact when rows share a timestamp (id breaks ties)', async () => {
    const tied = await app.createAccount('Tied');
    const tiedIds = await seedReturns(app, tied.storeId, 25, true);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await list(`?page-size=4${cursor ? `&page-continue=${encodeURIComponent(cursor)}` : ''}`, {}, tied);
      seen.push(...(await res.json()).returns.map((r: { id: string }) => r.id));
      cursor = res.headers.get('x-page-next');
    } while (cursor);
    expect(seen).toEqual([...tiedIds].sort().reverse());
  });

  it('does not skip or repeat rows when newer rows are inserted while paging', async () => {
    const busy = await app.createAccount('Busy');
    const initial = await seedReturns(app, busy.storeId, 30);
    const seen: string[] = [];
    let cursor: string | null = null;
    let round = 0;
    do {
      const res = await list(`?page-size=6${cursor ? `&page-continue=${encodeURIComponent(cursor)}` : ''}`, {}, busy);
      seen.push(...(await res.json()).returns.map((r: { id: string }) => r.id));
      cursor = res.headers.get('x-page-next');
      // A new return arrives (updated now, so it sorts before everything already listed).
      await query(app.databaseUrl, `insert into returns.return (id, store_id, order_id, status) values ($1, $2, $3, 'open')`, [
        `ret_new_${round++}`,
        busy.storeId,
        `ord_seed_${busy.storeId}`,
      ]);
    } while (cursor);
    expect(seen.filter((id) => id.startsWith('ret_seed_')).sort()).toEqual([...initial].sort());
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('accepts the page size as X-Page-Size, the query parameter winning', async () => {
    expect((await (await list('', { 'x-page-size': '3' })).json()).returns).toHaveLength(3);
    expect((await (await list('?page-size=5', { 'x-page-size': '3' })).json()).returns).toHaveLength(5);
    expect((await (await list('?page-size=500')).json()).returns).toHaveLength(103);
    expect((await (await list('?page-size=1')).json()).returns).toHaveLength(1);
  });

  it('accepts the cursor as X-Page-Continue', async () => {
    const first = await list('?page-size=10');
    const cursor = first.headers.get('x-page-next')!;
    const viaHeader = await (await list('?page-size=10', { 'x-page-continue': cursor })).json();
    const viaQuery = await (await list(`?page-size=10&page-continue=${encodeURIComponent(cursor)}`)).json();
    expect(viaHeader).toEqual(viaQuery);
    expect(viaHeader.returns[0].id).not.toBe((await first.json()).returns[0].id);
  });

  it.each(['0', '501', '-1', '1.5', 'abc', '', '20abc'])('answers 400 invalid-page-size for page-size=%s', async (size) => {
    const res = await list(`?page-size=${size}`);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.type).toBe('/problems/invalid-page-size');
    expect(body.errors).toEqual([{ pointer: 'query#page-size', detail: expect.any(String) }]);
  });

  it('answers 400 for a bad X-Page-Size header, pointing at the header', async () => {
    const res = await list('', { 'x-page-size': '9999' });
    expect(res.status).toBe(400);
    expect((await res.json()).errors[0].pointer).toBe('header#x-page-size');
  });

  it('answers 400 invalid-cursor for a malformed or tampered cursor', async () => {
    const cursor = (await list('?page-size=2')).headers.get('x-page-next')!;
    const [body, sig] = cursor.split('.');
    const decoded = JSON.parse(Buffer.from(body!, 'base64url').toString());
    decoded.k[1] = 'ret_zzzz';
    const forged = `${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${sig}`;
    for (const bad of ['garbage', `${cursor}x`, forged, `${body}.`, '...']) {
      const res = await list(`?page-continue=${encodeURIComponent(bad)}`);
      expect(res.status).toBe(400);
      expect((await res.json()).type).toBe('/problems/invalid-cursor');
    }
  });

  it('answers 400 invalid-cursor for a cursor issued for other filters (another store)', async () => {
    const cursor = (await list('?page-size=2', {}, other)).headers.get('x-page-next')!;
    const res = await list(`?page-continue=${encodeURIComponent(cursor)}`);
    expect(res.status).toBe(400);
    expect((await res.json()).type).toBe('/problems/invalid-cursor');
  });

  it('answers 400 unknown-parameter for a query parameter the list does not know', async () => {
    const res = await list('?statuz=open');
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.type).toBe('/problems/unknown-parameter');
    expect(body.errors[0].pointer).toBe('query#statuz');
  });
});
