import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN, testEnv } from './support/app.js';
import { call } from './support/crash-load.js';
import { createTestDatabase, query } from './support/database.js';
import { freePort, spawnNode, waitReady, type Spawned } from './support/processes.js';
import { orderBody, returnBody } from './support/returns.js';

/**
 * Two processes of the service (each an API and a worker) on one database, as decisions section 19
 * has them: the same Idempotency-Key sent to both at the same moment creates one return, and
 * whichever answers second tells the client so (a replay of the first, or "still running").
 */
describe('several API processes on one database', () => {
  let databaseUrl: string;
  const bases: string[] = [];
  const processes: Spawned[] = [];
  let storeId: string;
  let apiSecret: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      const s = spawnNode(['dist/server/main.js', 'all'], { ...testEnv(databaseUrl), PORT: String(port), NODE_ENV: 'test', LOG_LEVEL: 'warn' });
      processes.push(s);
      bases.push(`http://127.0.0.1:${port}`);
      // One after the other: both migrate the same schemas (under a lock), the second finds them done.
      await waitReady(bases[i]!, s);
    }
    const created = await call(bases[0]!, 'POST', '/graphql', TEST_ADMIN_TOKEN, { query: 'mutation { createAccount(input: {name: "Two", storeName: "Two store"}) { storeId apiSecret } }' });
    ({ storeId, apiSecret } = created.body.data.createAccount as { storeId: string; apiSecret: string });
    const order = await call(bases[1]!, 'POST', `/v2.2/stores/${storeId}/custom/orders`, apiSecret, orderBody({ id: 'TWO' }, [{ id: 'l1', quantity: 1000, price: '5.00' }]));
    expect(order.status).toBe(200);
  }, 180_000);
  afterAll(async () => {
    for (const s of processes) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    await Promise.all(processes.map((s) => s.exited));
  });

  it('the same Idempotency-Key sent to both processes at once creates one return, every time', { timeout: 120_000 }, async () => {
    const body = returnBody('TWO', [{ lineItemId: 'l1', quantity: 1, reason: 'race' }]);
    const keys = Array.from({ length: 25 }, (_, i) => `race-${i}`);
    for (const key of keys) {
      const answers = await Promise.all(bases.map((base) => call(base, 'POST', `/v2.2/stores/${storeId}/returns`, apiSecret, body, key)));
      const statuses = answers.map((a) => a.status).sort((a, b) => a - b);
      // One created it; the other replayed it (it came second) or was told the first still runs.
      expect([[200, 201], [201, 409]]).toContainEqual(statuses);
      const created = answers.find((a) => a.status === 201)!;
      // A client told 409 retries with the same key and gets the same return.
      for (const base of bases) {
        const again = await call(base, 'POST', `/v2.2/stores/${storeId}/returns`, apiSecret, body, key);
        expect(again.status).toBe(200);
        expect(again.body.return.id).toBe(created.body.return.id);
      }
    }
    const [row] = await query<{ n: number }>(databaseUrl, 'select count(*)::int as n from returns.return where store_id = $1', [storeId]);
    expect(row!.n).toBe(keys.length);
  });
});
