import { describe, expect, it } from 'vitest';
import { seedDemo, type Progress, type SeedCounts } from '../server/cli/seed-demo.js';
import { useTestAccount, useTestApp, type TestApp } from './support/app.js';
import { CONSUMED, jobRows, query } from './support/database.js';
import { eventually } from './support/eventually.js';
import { seedDemoCommand } from '../server/cli/seed-demo-command.js';

/** Waits until what the seeding set off (event processing, restock of completed returns) has run. */
async function settled(app: TestApp): Promise<void> {
  await eventually(async () => {
    const [row] = await query<{ n: number }>(
      app.databaseUrl,
      `select (select count(*) from events.event_inbox)
            + (select count(*) from platform.outbox_event e, platform.outbox_consumer c where c.name = 'inventory-restock' and e.type = 'return.updated' and not ${CONSUMED}) as n`,
    );
    const jobs = await jobRows(app.databaseUrl, { names: ['inventory-restock'], unfinished: true });
    return Number(row!.n) + jobs.length === 0 ? true : undefined;
  }, 'the seeded work to run');
}

const COUNTS: SeedCounts = { orders: 12, returns: 10, events: 40, inventory: 6, days: 30 };

/** What the store holds, as rows counted in the database (not through the seeder's own reads). */
async function snapshot(app: TestApp, storeId: string) {
  const count = async (sql: string) => (await query<{ n: number }>(app.databaseUrl, sql, [storeId]))[0]!.n;
  const statuses = await query<{ status: string; n: number }>(app.databaseUrl, 'select status, count(*)::int as n from returns.return where store_id = $1 group by status order by status', [storeId]);
  const shipments = await query<{ status: string; n: number }>(app.databaseUrl, 'select status, count(*)::int as n from inventory.inbound_shipment where store_id = $1 group by status order by status', [storeId]);
  return {
    orders: await count('select count(*)::int as n from returns."order" where store_id = $1'),
    returns: Object.fromEntries(statuses.map((r) => [r.status, r.n])),
    comments: await count('select count(*)::int as n from returns.return_comment c join returns.return r on r.id = c.return_id where r.store_id = $1'),
    shipments: Object.fromEntries(shipments.map((r) => [r.status, r.n])),
    locations: await count('select count(*)::int as n from inventory.location where store_id = $1'),
    stockedLocations: await count('select count(distinct location_id)::int as n from inventory.inventory_level where store_id = $1 and quantity > 0'),
    units: await count('select coalesce(sum(quantity), 0)::int as n from inventory.inventory_level where store_id = $1'),
    customers: await count('select count(*)::int as n from events.customer where store_id = $1'),
    flows: await count('select count(*)::int as n from events.flow where store_id = $1'),
    webhooks: await count('select count(*)::int as n from webhooks.subscription where store_id = $1 and deleted_at is null'),
    // The seeded events; the returns' status changes are events of their customers too (return.statusChanged), counted apart.
    events: await count("select count(*)::int as n from events.custom_event where store_id = $1 and event_name <> 'return.statusChanged'"),
  };
}

describe('admin seed-demo', () => {
  const app = useTestApp();
  const account = useTestAccount(app);
  const lines: string[] = [];
  const progress: Progress = {
    phase(name, total) {
      lines.push(`${name} 0/${total}`);
      let n = 0;
      return { tick: () => void n++, done: () => void lines.push(`${name} ${n}/${total}`) };
    },
  };

  it('fills a store through the API: orders, returns in every status, shipments, stock in several locations, customers with events', async () => {
    const summary = await seedDemo({ baseUrl: app.baseUrl, token: app.adminToken, storeId: account.storeId, counts: COUNTS, progress });
    await settled(app);
    const state = await snapshot(app, account.storeId);
    expect(state.orders).toBe(12);
    expect(Object.keys(state.returns).sort()).toEqual(['complete', 'deleted', 'delivered', 'flagged', 'in_review', 'in_transit', 'needs_review', 'open', 'pre_shipment', 'rejected']);
    expect(summary.returns).toEqual(Object.fromEntries(Object.keys(state.returns).map((s) => [s, 1])));
    expect(state.comments).toBeGreaterThan(0);
    expect(Object.keys(state.shipments).sort()).toEqual(['IN_TRANSIT', 'PARTIALLY_RECEIVED', 'PENDING', 'RECEIVED']);
    expect(state.locations).toBe(3);
    expect(state.stockedLocations).toBeGreaterThanOrEqual(2);
    expect(state.events).toBe(40);
    expect(state.customers).toBeGreaterThanOrEqual(8);
    // A thank-you after orders and an email when a return is rejected (made once: found by name again).
    expect(state.flows).toBe(2);
    // A subscription to the store's returns and orders, delivered to the command's own receiver while it ran.
    expect(state.webhooks).toBe(1);
    expect(summary.webhook).toMatchObject({ failed: 0, pending: 0 });
    expect(summary.webhook!.succeeded).toBeGreaterThanOrEqual(12 + 10);
    expect(summary.webhook!.received).toBeGreaterThanOrEqual(summary.webhook!.succeeded);
    const stats = await app.graphql<{ webhookStats: { subscriptions: { webhookId: string; status: string; measures: { succeeded: number } }[] } }>(
      'query($s: ID!) { webhookStats(storeId: $s, window: {from: "2020-01-01T00:00:00Z", until: "2030-01-01T00:00:00Z", interval: MONTH}) { subscriptions { webhookId status measures { succeeded } } } }',
      { s: account.storeId },
      app.adminToken,
    );
    expect(stats.errors, JSON.stringify(stats.errors)).toBeUndefined();
    expect(stats.data!.webhookStats.subscriptions).toEqual([{ webhookId: summary.webhook!.subscriptionId, status: 'active', measures: { succeeded: summary.webhook!.succeeded } }]);
    expect(lines).toContain('returns 10/10');
    // The store's own approval setting is left as it was.
    const settings = await app.graphql<{ storeSettings: { requireReturnApproval: boolean } }>('query($s: ID!) { storeSettings(storeId: $s) { requireReturnApproval } }', { s: account.storeId });
    expect(settings.data!.storeSettings.requireReturnApproval).toBe(false);
  });

  it('changes nothing when run again (a resumed or repeated run only adds what is missing)', async () => {
    const before = await snapshot(app, account.storeId);
    await seedDemo({ baseUrl: app.baseUrl, token: app.adminToken, storeId: account.storeId, counts: COUNTS, progress });
    await settled(app);
    expect(await snapshot(app, account.storeId)).toEqual(before);
  });

  it('runs as the admin command against the running service, with plain progress lines when not on a terminal', async () => {
    const other = await app.createAccount('CLI merchant');
    const out = { stdout: '', stderr: '' };
    const io = {
      env: { DATABASE_URL: app.databaseUrl, ADMIN_TOKEN: app.adminToken, LOG_LEVEL: 'warn' },
      stdout: { write: (text: string) => (out.stdout += text) },
      stderr: { write: (text: string) => (out.stderr += text), isTTY: false },
    };
    const args = ['--store', other.storeId, '--orders', '3', '--returns', '2', '--events', '5', '--inventory', '2', '--url', app.baseUrl];
    expect(await seedDemoCommand(args, io), out.stderr).toBe(0);
    expect(out.stderr).toContain('seed-demo: orders 3/3');
    expect(out.stdout).toMatch(/^Store sto_\S+: 3 orders, 2 returns \(1 open, 1 in_transit\)/);
    expect((await snapshot(app, other.storeId)).orders).toBe(3);
    expect(await seedDemoCommand(['--orders', '3'], io)).toBe(2);
    expect(out.stderr).toContain('--store is required');
  });

  it('spreads a dashboard-scale store over --days before --end: orders, returns dated after their orders, events; again, nothing changes', async () => {
    const store = await app.createAccount('Dashboard merchant');
    const io = {
      env: { DATABASE_URL: app.databaseUrl, ADMIN_TOKEN: app.adminToken, LOG_LEVEL: 'warn' },
      stdout: { write: () => true },
      stderr: { write: () => true, isTTY: false },
    };
    const args = ['--store', store.storeId, '--returns', '24', '--events', '600', '--inventory', '4', '--days', '60', '--end', '2026-11-01', '--url', app.baseUrl];
    expect(await seedDemoCommand(args, io)).toBe(0);
    await settled(app);
    const span = async () =>
      (
        // The seeded events (the returns' status changes are events too, made when the returns were: not the seed's).
        await query<{ orders: number; returns: number; events: number; first: Date; last: Date; early: number; days: number; lastDay: number }>(
          app.databaseUrl,
          `with seeded as (select * from events.custom_event where store_id = $1 and event_name <> 'return.statusChanged')
           select (select count(*) from returns."order" where store_id = $1)::int as orders,
                  (select count(*) from returns.return where store_id = $1)::int as returns,
                  (select count(*) from seeded)::int as events,
                  least((select min(created_at) from returns."order" where store_id = $1), (select min(event_timestamp) from seeded)) as first,
                  greatest((select max(created_at) from returns.return where store_id = $1), (select max(event_timestamp) from seeded)) as last,
                  (select count(*) from returns.return r join returns."order" o on o.id = r.order_id where r.store_id = $1 and r.created_at < o.created_at)::int as early,
                  (select count(distinct date_trunc('day', event_timestamp)) from seeded)::int as days,
                  (select count(*) from returns.return where store_id = $1 and created_at >= '2026-10-31T00:00:00Z')::int as "lastDay"`,
          [store.storeId],
        )
      )[0]!;
    const first = await span();
    // --returns alone brings four orders for each return.
    expect(first).toMatchObject({ orders: 96, returns: 24, events: 600, early: 0 });
    expect(first.first.getTime()).toBeGreaterThanOrEqual(Date.parse('2026-09-02T00:00:00Z'));
    expect(first.last.getTime()).toBeLessThan(Date.parse('2026-11-01T00:00:00Z'));
    expect(first.days).toBeGreaterThan(40);
    // Returns fall as they would: none piled on the last day (returns of recent orders are still to come).
    expect(first.lastDay).toBeLessThanOrEqual(2);
    expect(await seedDemoCommand(args, io)).toBe(0);
    await settled(app);
    expect(await span()).toEqual(first);
  }, 180_000);
});
