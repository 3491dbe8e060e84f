import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from './support/app.js';
import { createTestDatabase, query } from './support/database.js';
import { eventually } from './support/eventually.js';
import { freePort } from './support/processes.js';

/**
 * Heavy reads (decisions section 19: the `*Stats` queries, the dashboard's, exports' scans) go to
 * DATABASE_REPLICA_URL while it answers and is close enough behind, and to the primary otherwise;
 * everything else stays on the primary. A real standby (lag, failover) is exercised by the cluster
 * suite (`npm run test:ha`); here the "replica" is a second address of the same server, or one
 * that does not answer.
 */
const STATS = `query($s: ID!, $w: TimeWindowInput!) {
  returnStats(storeId: $s, window: $w) { totals { returns } }
  inventoryStats(storeId: $s, window: $w) { onHand { units } }
  webhookStats(storeId: $s, window: $w) { totals { deliveries } }
  flowStats(storeId: $s, window: $w) { totals { runsStarted } }
}`;
const WINDOW = { from: '2026-01-01T00:00:00Z', until: '2027-01-01T00:00:00Z', interval: 'MONTH' };

function sample(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('a read replica for heavy reads', () => {
  let databaseUrl: string;
  const apps: TestApp[] = [];
  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
  });
  afterAll(async () => {
    for (const app of apps) await app.stop();
  });
  const start = async (replicaUrl: string) => {
    const app = await startTestApp({ DATABASE_REPLICA_URL: replicaUrl, METRICS_TOKEN: 'replica-metrics-token-0123456789' }, 'all', { databaseUrl });
    apps.push(app);
    return app;
  };
  const scrape = async (app: TestApp) => (await app.request('/metrics', { token: app.adminToken })).text();
  /** Connections of this database opened under a replica pool's name. */
  const replicaConnections = () =>
    query<{ name: string }>(databaseUrl, `select application_name as name from pg_stat_activity where datname = current_database() and application_name like '% replica'`);

  it('sends the stats queries to the replica while it answers, and answers the same', async () => {
    // A second address of the same server: a replica with nothing to replay, so lag 0.
    const app = await start(databaseUrl.replace('127.0.0.1', 'localhost'));
    const account: TestAccount = await app.createAccount('Replica');
    const stats = await app.graphql(STATS, { s: account.storeId, w: WINDOW }, account.apiSecret);
    expect(stats.errors, JSON.stringify(stats.errors)).toBeUndefined();
    expect(stats.data).toEqual({ returnStats: { totals: { returns: 0 } }, inventoryStats: { onHand: [] }, webhookStats: { totals: { deliveries: 0 } }, flowStats: { totals: { runsStarted: 0 } } });
    const names = (await replicaConnections()).map((c) => c.name);
    for (const module of ['returns', 'inventory', 'events', 'webhooks']) expect(names).toContain(`returns-platform ${module} replica`);
    const metrics = await scrape(app);
    expect(sample(metrics, 'database_replica_usable')).toBe(1);
    expect(sample(metrics, 'database_replica_lag_seconds')).toBe(0);
    await app.stop();
    apps.pop();
    // Its replica pools close with it.
    await eventually(async () => ((await replicaConnections()).length === 0 ? true : undefined), 'the replica pools to close');
  });

  it('bypasses a replica that does not answer: the same answers from the primary, and the metric says so', async () => {
    const app = await start(`postgres://nobody:nothing@127.0.0.1:${await freePort()}/none`);
    const account = await app.createAccount('No replica');
    const stats = await app.graphql(STATS, { s: account.storeId, w: WINDOW }, account.apiSecret);
    expect(stats.errors, JSON.stringify(stats.errors)).toBeUndefined();
    expect(stats.data).toEqual({ returnStats: { totals: { returns: 0 } }, inventoryStats: { onHand: [] }, webhookStats: { totals: { deliveries: 0 } }, flowStats: { totals: { runsStarted: 0 } } });
    expect(await replicaConnections()).toEqual([]);
    expect(sample(await scrape(app), 'database_replica_usable')).toBe(0);
    expect((await app.request('/readyz')).status).toBe(200);
  });
});
