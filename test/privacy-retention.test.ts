import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { query } from './support/database.js';
import { accept, drained } from './support/events.js';
import { eventually } from './support/eventually.js';
import { createFlow, createTemplate } from './support/flows.js';
import { settled } from './support/privacy.js';
import { startReceiver, type Receiver } from './support/receiver.js';
import { call, createWebhook } from './support/webhooks.js';

const LONG_AGO = new Date(Date.now() - 2 * 365 * 24 * 3600 * 1000).toISOString();

/**
 * Retention: a store's setting (REST and GraphQL), and the job that removes, in batches, what is
 * past it: old custom events (never one a flow still runs for), messages, finished runs, webhook
 * logs. A store without a setting keeps events until erased and the rest for the defaults.
 */
describe('data retention', () => {
  const app = useTestApp();
  const strict = useTestAccount(app, 'Strict');
  const relaxed = useTestAccount(app, 'Relaxed');
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver?.close());

  const retentionOf = (account: { storeId: string; apiSecret: string }) => call(app, account.apiSecret, 'GET', `/v2.2/stores/${account.storeId}/data-retention`);

  it('is a per-store setting with documented defaults', async () => {
    expect((await retentionOf(relaxed)).body).toEqual({ retention: { customEventDays: null, messageDays: 365, flowRunDays: 90, webhookLogDays: 30 } });
    const put = await call(app, strict.apiSecret, 'PUT', `/v2.2/stores/${strict.storeId}/data-retention`, { retention: { customEventDays: 30, messageDays: 10, flowRunDays: 10, webhookLogDays: 5 } });
    expect(put.status).toBe(200);
    expect(put.body.retention).toEqual({ customEventDays: 30, messageDays: 10, flowRunDays: 10, webhookLogDays: 5 });
    // Given values replace, omitted ones stay; null keeps until erased.
    const graph = await app.graphql<{ updateDataRetention: unknown }>(
      `mutation($s: ID!) { updateDataRetention(storeId: $s, input: {messageDays: null}) { customEventDays messageDays flowRunDays webhookLogDays } }`,
      { s: strict.storeId },
      strict.apiSecret,
    );
    expect(graph.data!.updateDataRetention).toEqual({ customEventDays: 30, messageDays: null, flowRunDays: 10, webhookLogDays: 5 });
    await call(app, strict.apiSecret, 'PUT', `/v2.2/stores/${strict.storeId}/data-retention`, { retention: { messageDays: 10 } });
    expect((await retentionOf(strict)).body.retention.messageDays).toBe(10);
    const bad = await call(app, strict.apiSecret, 'PUT', `/v2.2/stores/${strict.storeId}/data-retention`, { retention: { messageDays: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].pointer).toBe('/retention/messageDays');
  });

  it('removes what is past each store\'s retention, in batches, and counts it', { timeout: 120_000 }, async () => {
    for (const account of [strict, relaxed]) {
      expect((await createWebhook(app, account, { callback: { url: receiver.url, auth: null }, topic: 'custom_event' })).status).toBe(201);
      const template = await createTemplate(app, account, { name: 'Hi', channel: 'EMAIL', subject: 'Hi', body: 'Hello' });
      await createFlow(app, account, { name: 'Waits', trigger: { eventName: 'Placed Order' }, steps: [{ sendEmail: { templateId: template, kind: 'transactional' } }, { wait: { seconds: 86_400 } }] });
      await createFlow(app, account, { name: 'Ends', trigger: { eventName: 'Viewed' }, steps: [{ sendEmail: { templateId: template, kind: 'transactional' } }] });
      const customer = { email: `kim@${account.storeId.toLowerCase()}.example.com` };
      await accept(app, account, { eventName: 'Placed Order', eventTimestamp: LONG_AGO, customer, data: { which: 'old, waiting' } });
      await accept(app, account, { eventName: 'Viewed', eventTimestamp: LONG_AGO, customer, data: { which: 'old' } });
      await accept(app, account, { eventName: 'Viewed', customer, data: { which: 'new' } });
      await accept(app, account, { eventName: 'Other', eventTimestamp: LONG_AGO, uniqueId: 'u-old', customer, data: { which: 'old, claimed' } });
    }
    await drained(app.databaseUrl);
    await eventually(async () => (await query(app.databaseUrl, `select 1 from events.message`)).length === 6, 'the messages of both stores');
    await settled(app.databaseUrl);
    // Time moves in the rows: the old events received two years ago (into that month's partition, which the
    // relaxed store's events keep: its rows go one by one), messages, finished runs and the webhook log aged
    // past the strict store's setting.
    await query(app.databaseUrl, `select events.ensure_custom_event_partition(now() - interval '2 years')`);
    await query(app.databaseUrl, `update events.custom_event set received_at = now() - interval '2 years' where data->>'which' like 'old%'`);
    await query(app.databaseUrl, `update events.message set created_at = now() - interval '11 days'`);
    await query(app.databaseUrl, `update events.flow_run set finished_at = now() - interval '11 days' where finished_at is not null`);
    await query(app.databaseUrl, `update webhooks.attempt set created_at = now() - interval '6 days'`);
    await query(app.databaseUrl, `update webhooks.message set finished_at = now() - interval '6 days' where state <> 'queued'`);

    expect((await app.graphql<{ enforceDataRetention: boolean }>('mutation { enforceDataRetention }')).data).toEqual({ enforceDataRetention: true });
    const events = (storeId: string) => query<{ which: string }>(app.databaseUrl, `select data->>'which' as which from events.custom_event where store_id = $1 order by 1`, [storeId]);
    await eventually(async () => (await events(strict.storeId)).length === 2, "the strict store's old events to go");
    await settled(app.databaseUrl);

    expect(await events(strict.storeId)).toEqual([{ which: 'new' }, { which: 'old, waiting' }]);
    expect(await events(relaxed.storeId)).toHaveLength(4);
    const count = (sql: string, storeId: string) => query<{ n: number }>(app.databaseUrl, sql, [storeId]).then(([r]) => Number(r!.n));
    expect(await count(`select count(*) as n from events.custom_event_unique_id where store_id = $1`, strict.storeId)).toBe(0);
    expect(await count(`select count(*) as n from events.message where store_id = $1`, strict.storeId)).toBe(0);
    expect(await count(`select count(*) as n from events.message where store_id = $1`, relaxed.storeId)).toBe(3);
    // The waiting run stays; the finished ones went (with their events, or past the setting).
    expect(await query(app.databaseUrl, `select status from events.flow_run where store_id = $1`, [strict.storeId])).toEqual([{ status: 'WAITING' }]);
    expect(await count(`select count(*) as n from events.flow_run where store_id = $1`, relaxed.storeId)).toBe(3);
    const log = (storeId: string) => count(`select count(*) as n from webhooks.attempt a join webhooks.subscription s on s.id = a.subscription_id where s.store_id = $1`, storeId);
    expect(await log(strict.storeId)).toBe(0);
    expect(await log(relaxed.storeId)).toBeGreaterThan(0);

    const metrics = await fetch(`${app.baseUrl}/metrics`, { headers: { authorization: `Bearer ${app.adminToken}` } }).then((r) => r.text());
    expect(metrics).toMatch(/privacy_retention_removed_total\{kind="custom_event"\} 2/);
    expect(metrics).toMatch(/privacy_retention_removed_total\{kind="webhook_attempt"\} [1-9]/);
  });

  it('drops a whole month when every store with events in it keeps them for less, with its rollup counts, uniqueIds and runs', { timeout: 120_000 }, async () => {
    const monthly = await app.createAccount('Monthly');
    expect((await call(app, monthly.apiSecret, 'PUT', `/v2.2/stores/${monthly.storeId}/data-retention`, { retention: { customEventDays: 30 } })).status).toBe(200);
    const customer = { email: 'mo@example.com' };
    for (let i = 0; i < 5; i++) await accept(app, monthly, { eventName: 'Old month', uniqueId: `m-${i}`, customer, data: { i: i + 1 } });
    await accept(app, monthly, { eventName: 'This month', customer });
    await drained(app.databaseUrl);
    // Five events received fourteen months ago, alone in their month.
    const [{ part }] = (await query<{ part: string }>(app.databaseUrl, `select 'custom_event_y' || to_char(date_trunc('month', (now() - interval '14 months') at time zone 'UTC'), 'YYYY"m"MM') as part`)) as [{ part: string }];
    await query(app.databaseUrl, `select events.ensure_custom_event_partition(now() - interval '14 months')`);
    await query(app.databaseUrl, `update events.custom_event set received_at = now() - interval '14 months' where store_id = $1 and event_name = 'Old month'`, [monthly.storeId]);
    const partitions = () => query<{ name: string }>(app.databaseUrl, `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'events.custom_event'::regclass`);
    expect((await partitions()).map((p) => p.name)).toContain(part);
    const stats = async () =>
      (
        await app.graphql<{ eventStats: { totals: { count: number } } }>(
          'query($s: ID!, $w: TimeWindowInput!) { eventStats(storeId: $s, eventName: "Old month", window: $w) { totals { count } } }',
          { s: monthly.storeId, w: { from: new Date(Date.now() - 86_400_000).toISOString(), until: new Date(Date.now() + 3_600_000).toISOString(), interval: 'DAY' } },
          monthly.apiSecret,
        )
      ).data!.eventStats.totals.count;
    expect(await stats()).toBe(5);

    expect((await app.graphql('mutation { enforceDataRetention }')).data).toEqual({ enforceDataRetention: true });
    await eventually(async () => ((await partitions()).some((p) => p.name === part) ? undefined : true), 'the month to be dropped');
    expect(await query(app.databaseUrl, `select event_name from events.custom_event where store_id = $1`, [monthly.storeId])).toEqual([{ event_name: 'This month' }]);
    expect(await query(app.databaseUrl, `select 1 from events.custom_event_unique_id where store_id = $1`, [monthly.storeId])).toEqual([]);
    // The rollup no longer counts them (analytics stay exact).
    expect(await stats()).toBe(0);
  });
});
