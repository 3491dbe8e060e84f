import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from './support/app.js';
import { seedReturn } from './support/compat.js';
import { query } from './support/database.js';
import { eventually } from './support/eventually.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';

/**
 * A database that takes a request's connections and does not give them back in time (here: a
 * row lock held elsewhere): every request still gets an answer, 503 with Retry-After, readiness
 * says which pool cannot serve, and the log says what the late request waited on.
 */
describe('no request without an answer', () => {
  let app: TestApp;
  let acme: TestAccount;
  const logs: Record<string, unknown>[] = [];

  beforeAll(async () => {
    // Two connections per pool, a short wait for one, a short deadline (the defaults are 10 s and 30 s).
    app = await startTestApp({ DB_POOL_SIZE: '2', DB_ACQUIRE_TIMEOUT_MS: '2000', REQUEST_TIMEOUT_MS: '6000', LOG_LEVEL: 'warn' }, 'all', { logs });
    acme = await app.createAccount('Acme');
    expect((await pushOrder(app, acme, orderBody({ id: 'HELD' }, [{ id: 'l1', quantity: 10, price: '5.00' }]))).status).toBe(200);
  });
  afterAll(async () => {
    await app?.stop();
  });

  const unavailable = (res: { status: number; body: any; headers: Headers }) => {
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(res.body.type).toBe('/problems/service-unavailable');
  };

  it('answers 503 when no connection comes in time and at the deadline, tells readiness, logs the step, and lets the key be retried', { timeout: 60_000 }, async () => {
    const body = returnBody('HELD', [{ lineItemId: 'l1', quantity: 1, reason: 'r' }]);
    const blocker = new pg.Client({ connectionString: app.databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('begin');
      await blocker.query(`select 1 from returns."order" where external_id = 'HELD' and store_id = $1 for update`, [acme.storeId]);
      // Two creations wait on the order's lock, each holding one of the returns pool's two connections.
      const stuck = [postReturn(app, acme, body, { 'idempotency-key': 'stuck-1' }), postReturn(app, acme, body, { 'idempotency-key': 'stuck-2' })];
      await eventually(
        async () => (await query<{ n: number }>(app.databaseUrl, `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`))[0]!.n === 2,
        'both creations to wait on the lock',
        { timeoutMs: 20_000 },
      );

      // A read needs a returns connection too: none comes within DB_ACQUIRE_TIMEOUT_MS.
      const read = await app.request(`/v2.2/stores/${acme.storeId}/returns`, { token: acme.apiSecret });
      unavailable({ status: read.status, body: await read.json(), headers: read.headers });
      const ready = await app.request('/readyz');
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { checks: { pools: Record<string, boolean> } }).checks.pools).toEqual({
        platform: true,
        returns: false,
        inventory: true,
        events: true,
        webhooks: true,
      });

      // The stuck creations get their answer at the deadline; the log says what they waited on.
      for (const res of await Promise.all(stuck)) unavailable(res);
      const late = logs.filter((l) => l.msg === 'request deadline passed: answered 503');
      expect(late).toHaveLength(2);
      for (const line of late) {
        expect(line).toMatchObject({ method: 'POST', path: `/v2.2/stores/${acme.storeId}/returns`, deadlineMs: 6000 });
        expect(line.requestId).toEqual(expect.any(String));
        const waits = line.waitingOn as { what: string; ms: number }[];
        expect(waits.map((w) => w.what).join('\n'), JSON.stringify(waits)).toMatch(/^returns: select /m);
      }
    } finally {
      await blocker.query('commit').catch(() => undefined);
      await blocker.end();
    }

    // Released, the requests cut off at their deadline go on and commit, one after the other (both
    // wait on the order's lock), with no request from anyone: a retry of a key then replays its return.
    await eventually(async () => (await app.request('/readyz')).status === 200, 'ready again', { timeoutMs: 20_000 });
    const returnsOfAcme = async () => (await query<{ n: number }>(app.databaseUrl, 'select count(*)::int as n from returns.return where store_id = $1', [acme.storeId]))[0]!.n;
    await eventually(async () => (await returnsOfAcme()) === 2, 'both cut-off creations to commit', { timeoutMs: 20_000 });
    // (409 idempotency-key-in-progress while it still runs: a client retries shortly.)
    const retried = await eventually(async () => {
      const res = await postReturn(app, acme, body, { 'idempotency-key': 'stuck-1' });
      return res.status === 409 ? undefined : res;
    }, 'the retry of the key to be answered');
    expect(retried.status).toBe(200);
    expect(await returnsOfAcme()).toBe(2);
    // Their late answers went nowhere, and nothing failed on the way (but the queue's pollers: a dozen
    // of them share the queue pool's two connections here, and some wait past DB_ACQUIRE_TIMEOUT_MS).
    const failures = logs.filter((l) => (l.level as number) >= 50 && l.msg !== 'queue error');
    expect(failures, JSON.stringify(failures)).toEqual([]);
  });

  it("answers a Loop-compatible request at its deadline in Loop's format", { timeout: 60_000 }, async () => {
    const seeded = await seedReturn(app, acme);
    const blocker = new pg.Client({ connectionString: app.databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('begin');
      await blocker.query('select 1 from returns.return where id = $1 for update', [seeded.id]);
      // The note waits on the return's lock past REQUEST_TIMEOUT_MS.
      // Plain fetch: the compatibility API's document does not declare Retry-After on its 503s (the contract check would refuse it).
      const res = await fetch(`${app.baseUrl}/api/v1/warehouse/return/${seeded.numericId}/note`, {
        method: 'POST',
        headers: { 'x-authorization': acme.compatKey, 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'late' }),
      });
      const text = await res.text();
      expect(res.status, text).toBe(503);
      expect(res.headers.get('retry-after')).toBe('2');
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(text).toBe('{"message":"Service Unavailable"}');
      const late = logs.filter((l) => l.msg === 'request deadline passed: answered 503' && l.path === `/api/v1/warehouse/return/${seeded.numericId}/note`);
      expect(late).toHaveLength(1);
    } finally {
      await blocker.query('commit').catch(() => undefined);
      await blocker.end();
    }
  });
});
