import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp, type TestAccount, type TestApp } from './support/app.js';
import { query } from './support/database.js';
import { postReturn, returnBody, seedReturns } from './support/returns.js';

/**
 * Seeds returns through the API, then spreads their `updated_at` over a few
 * seconds (or gives them all the same one) so the keyset has ties to break.
 */
async function seed(app: TestApp, account: TestAccount, count: number, sameTimestamp = false): Promise<string[]> {
  const { returnIds } = await seedReturns(app, account, count);
  await query(
    app.databaseUrl,
    `update returns.return set updated_at = timestamptz '2026-01-01T00:00:00Z' + case when $2 then interval '0' else (abs(hashtext(id)) % 37) * interval '1 second' end
     where store_id = $1`,
    [account.storeId, sameTimestamp],
  );
  return returnIds;
}

describe('pagination on GET /v2.2/stores/{storeId}/returns', () => {
  const app = useTestApp({ LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' });
  const acme = useTestAccount(app, 'Acme');
  const other = useTestAccount(app, 'Other');
  let ids: string[];
  beforeAll(async () => {
    ids = await seed(app, acme, 103);
    await seed(app, other, 5);
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
    const tiedIds = await seed(app, tied, 25, true);
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
    const { returnIds: initial, orderId } = await seedReturns(app, busy, 40, 20);
    await query(app.databaseUrl, `update returns.return set updated_at = timestamptz '2026-01-01T00:00:00Z' + (abs(hashtext(id)) % 37) * interval '1 second' where store_id = $1`, [busy.storeId]);
    const orderExternalId = (await query<{ external_id: string }>(app.databaseUrl, 'select external_id from returns."order" where id = $1', [orderId]))[0]!.external_id;
    const seen: string[] = [];
    const newIds: string[] = [];
    let cursor: string | null = null;
    let round = 0;
    do {
      const res = await list(`?page-size=6${cursor ? `&page-continue=${encodeURIComponent(cursor)}` : ''}`, {}, busy);
      seen.push(...(await res.json()).returns.map((r: { id: string }) => r.id));
      cursor = res.headers.get('x-page-next');
      // Meanwhile a new return arrives and an already-listed one changes: both now sort first.
      const created = await postReturn(app, busy, returnBody(orderExternalId, [{ lineItemId: 'bulk', quantity: 1, reason: 'late' }]));
      expect(created.status).toBe(201);
      newIds.push(created.body.return.id);
      const listed = seen[round++];
      if (listed) expect((await app.request(`/v2.2/returns/${listed}/comments`, { method: 'POST', token: busy.apiSecret, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ comment: { message: 'seen' } }) })).status).toBe(201);
    } while (cursor);
    // Every return that existed unchanged is seen exactly once; nothing is repeated.
    expect(seen.filter((id) => initial.includes(id)).sort()).toEqual([...initial].sort());
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.some((id) => newIds.includes(id))).toBe(false);
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

  it('ignores a query parameter the list does not know (decisions 17) and names it in Ignored-Parameters', async () => {
    const res = await list('?statuz=open&limit=10&page-size=2');
    expect(res.status).toBe(200);
    expect(res.headers.get('ignored-parameters')).toBe('statuz, limit');
    expect((await res.json()).returns).toHaveLength(2);
    // A known parameter with an invalid value is still refused.
    const bad = await list('?status=opne&limit=10');
    expect(bad.status).toBe(400);
    expect((await bad.json()).errors).toEqual([{ pointer: 'query#status', detail: expect.any(String) }]);
    expect(bad.headers.get('ignored-parameters')).toBe('limit');
    expect((await list('?page-size=2')).headers.get('ignored-parameters')).toBeNull();
  });
});
