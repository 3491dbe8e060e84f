import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { query } from './support/database.js';
import { eventually } from './support/eventually.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';

describe('Idempotency-Key on return creation', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Acme');
  beforeAll(async () => {
    await pushOrder(app, acme, orderBody({ id: 'I-1' }, [{ id: 'a', quantity: 50, price: '5.00' }]));
  });

  const body = (quantity = 1) => returnBody('I-1', [{ lineItemId: 'a', quantity, reason: 'r' }]);

  it('replays the same return with 200 for the same key and body (keys in any order)', async () => {
    const first = await postReturn(app, acme, body(), { 'idempotency-key': 'k-1' });
    expect(first.status).toBe(201);
    const reordered = { options: { createExternalRMAs: false }, data: { items: [{ reason: 'r', quantity: 1, lineItemId: 'a' }], externalOrderId: 'I-1', provider: 'custom' } };
    const again = await postReturn(app, acme, reordered, { 'idempotency-key': 'k-1' });
    expect(again.status).toBe(200);
    expect(again.body.return.id).toBe(first.body.return.id);
    const count = await query(app.databaseUrl, `select count(*)::int as n from returns.return where store_id = $1`, [acme.storeId]);
    expect(count[0]!.n).toBe(1);
  });

  it('answers 422 idempotency-key-reused for the same key with another body', async () => {
    await postReturn(app, acme, body(), { 'idempotency-key': 'k-2' });
    const other = await postReturn(app, acme, body(2), { 'idempotency-key': 'k-2' });
    expect(other.status).toBe(422);
    expect(other.body.type).toBe('/problems/idempotency-key-reused');
  });

  it('scopes keys to the store', async () => {
    const globex = await app.createAccount('Globex');
    await pushOrder(app, globex, orderBody({ id: 'I-1' }, [{ id: 'a', quantity: 5, price: '5.00' }]));
    const a = await postReturn(app, acme, body(), { 'idempotency-key': 'shared' });
    const b = await postReturn(app, globex, body(), { 'idempotency-key': 'shared' });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(a.body.return.id).not.toBe(b.body.return.id);
  });

  it('forgets a key after 24 hours: it may then be used for another request', async () => {
    const first = await postReturn(app, acme, body(), { 'idempotency-key': 'k-old' });
    expect(first.status).toBe(201);
    const [row] = await query<{ hours: number }>(app.databaseUrl, `select extract(epoch from expires_at - claimed_at) / 3600 as hours from returns.idempotency_key where key = 'k-old'`);
    expect(Number(row!.hours)).toBeCloseTo(24, 3);
    await query(app.databaseUrl, `update returns.idempotency_key set expires_at = now() - interval '1 second' where key = 'k-old'`);
    const later = await postReturn(app, acme, body(2), { 'idempotency-key': 'k-old' });
    expect(later.status).toBe(201);
    expect(later.body.return.id).not.toBe(first.body.return.id);
  });

  it('answers 400 for a key over 255 characters', async () => {
    const res = await postReturn(app, acme, body(), { 'idempotency-key': 'k'.repeat(256) });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].pointer).toBe('header#idempotency-key');
  });

  it('frees the key when the request fails, so a corrected retry can use it', async () => {
    const failed = await postReturn(app, acme, returnBody('I-1', [{ lineItemId: 'zzz', quantity: 1, reason: 'r' }]), { 'idempotency-key': 'k-3' });
    expect(failed.status).toBe(400);
    const failedAgain = await postReturn(app, acme, returnBody('nope', [{ lineItemId: 'a', quantity: 1, reason: 'r' }]), { 'idempotency-key': 'k-4' });
    expect(failedAgain.status).toBe(404);
    expect((await postReturn(app, acme, body(), { 'idempotency-key': 'k-4' })).status).toBe(201);
  });

  it('answers 409 idempotency-key-in-progress to a duplicate sent while the first is still running', async () => {
    // Hold the order's row lock so the first request stops inside its transaction, after claiming the key.
    const blocker = new pg.Client({ connectionString: app.databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('begin');
      await blocker.query(`select 1 from returns."order" where external_id = 'I-1' and store_id = $1 for update`, [acme.storeId]);
      const first = postReturn(app, acme, body(), { 'idempotency-key': 'k-slow' });
      // The first request holds the key (an advisory lock of its transaction) while it waits for the order.
      const held = `select 1 from pg_locks where locktype = 'advisory' and granted and objsubid = 1
                      and ((classid::bigint << 32) | objid::bigint) = hashtextextended('idempotency:' || $1 || ':k-slow', 0)`;
      await eventually(async () => (await query(app.databaseUrl, held, [acme.storeId])).length === 1, 'the key to be claimed', { timeoutMs: 10_000 });
      const duplicate = await postReturn(app, acme, body(), { 'idempotency-key': 'k-slow' });
      expect(duplicate.status).toBe(409);
      expect(duplicate.body.type).toBe('/problems/idempotency-key-in-progress');
      await blocker.query('commit');
      const done = await first;
      expect(done.status).toBe(201);
      const replay = await postReturn(app, acme, body(), { 'idempotency-key': 'k-slow' });
      expect(replay.status).toBe(200);
      expect(replay.body.return.id).toBe(done.body.return.id);
    } finally {
      await blocker.end();
    }
  });

  it('creates exactly one return for a concurrent pair with the same key', async () => {
    const results = await Promise.all([1, 2, 3, 4].map(() => postReturn(app, acme, body(), { 'idempotency-key': 'k-race' })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.every((s) => s === 201 || s === 200 || s === 409)).toBe(true);
    const ids = new Set(results.filter((r) => r.status !== 409).map((r) => r.body.return.id));
    expect(ids.size).toBe(1);
  });
});

describe('returns-over-return-concurrency', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Acme');

  it('lets exactly one of many concurrent creates take the last returnable unit', async () => {
    await pushOrder(app, acme, orderBody({ id: 'C-1' }, [{ id: 'only', quantity: 3, price: '5.00' }]));
    expect((await postReturn(app, acme, returnBody('C-1', [{ lineItemId: 'only', quantity: 2, reason: 'r' }]))).status).toBe(201);
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => postReturn(app, acme, returnBody('C-1', [{ lineItemId: 'only', quantity: 1, reason: `r${i}` }]))));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(11);
    const [row] = await query<{ units: number }>(
      app.databaseUrl,
      `select sum(i.quantity)::int as units from returns.return_item i join returns.return r on r.id = i.return_id where r.store_id = $1`,
      [acme.storeId],
    );
    expect(row!.units).toBe(3);
  });
});
