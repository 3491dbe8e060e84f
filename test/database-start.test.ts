import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../platform/db/embedded-postgres.js';
import { createLogger } from '../platform/observability/logger.js';
import { TEST_ADMIN_TOKEN, testEnv } from './support/app.js';
import { eventually } from './support/eventually.js';
import { freePort, pgCtl, spawnNode, type Spawned } from './support/processes.js';

/**
 * A service started while its database cannot be reached (a cluster failing over, a database that
 * starts after the service, decisions section 19) waits for it instead of exiting, and serves as
 * soon as it answers: the same process, its queue and workers included.
 */
describe('a database that is away when the service starts', () => {
  let dataDir: string;
  let external: EmbeddedPostgres | undefined;
  let service: Spawned | undefined;
  afterAll(async () => {
    if (service && service.child.exitCode === null) {
      service.child.kill('SIGKILL');
      await service.exited;
    }
    await external?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is waited for, then served by the same process, workers included', { timeout: 180_000 }, async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'database-start-'));
    external = await startEmbeddedPostgres({ dataDir, logger: createLogger('silent'), durable: false });
    await pgCtl(dataDir, 'stop', '-m', 'fast');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    service = spawnNode(['dist/server/main.js', 'all'], { ...testEnv(external.url), PORT: String(port), NODE_ENV: 'test', LOG_LEVEL: 'warn', DATABASE_LOST_EXIT_MS: '120000' });
    await eventually(async () => (service!.output().includes('database unavailable at start: waiting for it') ? true : undefined), 'the service to wait for its database');
    expect(service.child.exitCode).toBeNull();

    expect(await external.ensureRunning()).toBe(true);
    await eventually(async () => (await fetch(`${base}/readyz`).catch(() => null))?.status === 200, 'the service to be ready', { timeoutMs: 60_000 });
    // It serves, and its workers process what it accepts.
    const created = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation { createAccount(input: {name: "Late", storeName: "Late store"}) { storeId apiSecret } }' }),
    });
    const { storeId, apiSecret } = ((await created.json()) as { data: { createAccount: { storeId: string; apiSecret: string } } }).data.createAccount;
    const accepted = await fetch(`${base}/v2.2/stores/${storeId}/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiSecret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ eventName: 'Arrived', customer: { email: 'late@example.com' } }),
    });
    expect(accepted.status).toBe(202);
    await eventually(async () => {
      const res = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiSecret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: `{ customers(storeId: "${storeId}", first: 5) { edges { node { email } } } }` }),
      });
      const body = (await res.json()) as { data?: { customers: { edges: { node: { email: string } }[] } } };
      return body.data?.customers.edges.some((e) => e.node.email === 'late@example.com') ? true : undefined;
    }, 'the event to be processed');
  });
});
