import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN } from './support/app.js';
import { query } from './support/database.js';
import { eventually } from './support/eventually.js';
import { useServiceProcess } from './support/processes.js';
import { orderBody, returnBody } from './support/returns.js';

/**
 * A return creation cut off by a crash of the service (SIGKILL while its
 * transaction holds the Idempotency-Key) can be retried with the same key as
 * soon as the service is back: the claim died with the request's connection.
 */
describe('crash-idempotency: a claim dies with its request', () => {
  const app = useServiceProcess();
  const start = () => app.start();
  const call = (path: string, token: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${app.baseUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('answers the retry after the restart with the return (201), exactly one return, and 200 replays after that', { timeout: 120_000 }, async () => {
    await start();
    const created = await call('/graphql', TEST_ADMIN_TOKEN, { query: 'mutation { createAccount(input: {name: "Crash", storeName: "Crash store"}) { storeId apiSecret } }' });
    const { storeId, apiSecret } = ((await created.json()) as { data: { createAccount: { storeId: string; apiSecret: string } } }).data.createAccount;
    const order = orderBody({ id: 'CRASH-1' }, [{ id: 'l1', quantity: 1, price: '10.00' }]);
    expect((await call(`/v2.2/stores/${storeId}/custom/orders`, apiSecret, order)).status).toBe(200);
    const body = returnBody('CRASH-1', [{ lineItemId: 'l1', quantity: 1, reason: 'broken' }]);
    const headers = { 'idempotency-key': 'crash-key-1' };

    // Hold the order's row lock so the creation stops inside its transaction, holding the key.
    const blocker = new pg.Client({ connectionString: app.databaseUrl });
    await blocker.connect();
    await blocker.query('begin');
    await blocker.query(`select 1 from returns."order" where external_id = 'CRASH-1' for update`);
    const inFlight = call(`/v2.2/stores/${storeId}/returns`, apiSecret, body, headers).catch(() => undefined);
    const held = `select 1 from pg_locks where locktype = 'advisory' and granted and objsubid = 1
                    and ((classid::bigint << 32) | objid::bigint) = hashtextextended('idempotency:' || $1 || ':crash-key-1', 0)`;
    await eventually(async () => (await query(app.databaseUrl, held, [storeId])).length === 1, 'the key to be held', { timeoutMs: 10_000 });
    // While the first request really runs, a duplicate is told so.
    expect((await call(`/v2.2/stores/${storeId}/returns`, apiSecret, body, headers)).status).toBe(409);

    await app.kill();
    await inFlight;
    await blocker.query('commit');
    await blocker.end();
    await start();

    const retried = await call(`/v2.2/stores/${storeId}/returns`, apiSecret, body, headers);
    expect(retried.status).toBe(201);
    const first = ((await retried.json()) as { return: { id: string } }).return.id;
    const replay = await call(`/v2.2/stores/${storeId}/returns`, apiSecret, body, headers);
    expect(replay.status).toBe(200);
    expect(((await replay.json()) as { return: { id: string } }).return.id).toBe(first);
    expect(await query(app.databaseUrl, 'select id from returns.return where store_id = $1', [storeId])).toEqual([{ id: first }]);
  });
});
