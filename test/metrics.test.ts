import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { accept } from './support/events.js';
import { eventually } from './support/eventually.js';
import { startReceiver, type Receiver } from './support/receiver.js';
import { createWebhook } from './support/webhooks.js';

const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

/** The value of one sample of the exposition text, or undefined when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const series = line.slice(0, line.lastIndexOf(' '));
    if (Object.entries(labels).every(([k, v]) => series.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('GET /metrics', () => {
  const app = useTestApp({ METRICS_TOKEN });
  const account = useTestAccount(app);
  const scrape = async (token = app.adminToken) => {
    const res = await app.request('/metrics', { token });
    expect(res.status).toBe(200);
    return res.text();
  };


  it('answers only the admin token or METRICS_TOKEN, in the Prometheus text format', async () => {
    expect((await app.request('/metrics')).status).toBe(401);
    expect((await app.request('/metrics', { token: account.apiSecret })).status).toBe(401);
    const res = await app.request('/metrics', { token: METRICS_TOKEN });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await scrape()).toContain('# TYPE http_request_duration_seconds histogram');
  });

  it('counts HTTP requests by route template, method and status, never by the raw URL', async () => {
    await app.request(`/v2.2/stores/${account.storeId}/returns`, { token: account.apiSecret });
    await app.request(`/v2.2/returns/ret_unknown`, { token: account.apiSecret });
    await app.request('/no/such/path/ret_123');
    const text = await scrape();
    expect(sample(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/v2.2/stores/:storeId/returns', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/v2.2/returns/:returnId', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'http_request_duration_seconds_bucket', { route: '/v2.2/stores/:storeId/returns', le: '+Inf' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'http_request_duration_seconds_count', { route: '(unmatched)', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain(account.storeId);
    expect(text).not.toContain('ret_');
  });

  it('counts GraphQL operations by name, from /graphql clients and from the REST facade', async () => {
    await app.graphql('query StoreProbe($id: ID!) { returns(storeId: $id, first: 1) { totalCount } }', { id: account.storeId }, account.apiSecret);
    await app.graphql('query Broken { nope }', {}, account.apiSecret);
    const text = await scrape();
    expect(sample(text, 'graphql_operations_total', { source: 'graphql', operation: 'StoreProbe', type: 'query', outcome: 'success' })).toBe(1);
    expect(sample(text, 'graphql_operations_total', { source: 'graphql', operation: 'Broken', outcome: 'error' })).toBe(1);
    expect(sample(text, 'graphql_operations_total', { source: 'rest', operation: 'ListReturns', type: 'query', outcome: 'success' })).toBeGreaterThanOrEqual(1);
  });

  it('reads queue depths and the age of the oldest due job at scrape time', async () => {
    const boss = app.service.runtime.boss;
    await boss.createQueue('metrics-probe');
    await boss.send('metrics-probe', { n: 1 });
    await boss.send('metrics-probe', { n: 2 }, { startAfter: 3600 });
    const text = await scrape();
    expect(sample(text, 'queue_jobs', { queue: 'metrics-probe', state: 'queued' })).toBe(1);
    expect(sample(text, 'queue_jobs', { queue: 'metrics-probe', state: 'deferred' })).toBe(1);
    expect(sample(text, 'queue_jobs', { queue: 'metrics-probe', state: 'active' })).toBe(0);
    expect(sample(text, 'queue_oldest_job_age_seconds', { queue: 'metrics-probe' })).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'queue_jobs', { queue: 'custom-events', state: 'queued' })).toBeDefined();
    expect(sample(text, 'metrics_collector_failures')).toBe(0);
  });

  it('counts custom events accepted and processed', async () => {
    await accept(app, account, { eventName: 'Viewed Product', customer: { email: 'metrics@example.com' } });
    const text = await eventually(async () => {
      const t = await scrape();
      return (sample(t, 'custom_events_processed_total', { outcome: 'completed' }) ?? 0) >= 1 ? t : undefined;
    }, 'the event to be processed');
    expect(sample(text, 'custom_events_accepted_total')).toBeGreaterThanOrEqual(1);
  });

  it('shows how far behind each outbox consumer is: unread events and the age of the oldest', async () => {
    // Hold the flows' position (a consumer skips its position while another transaction holds it).
    const holder = new pg.Client({ connectionString: app.databaseUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query(`select 1 from platform.outbox_consumer where name = 'flow-triggers' for update`);
      await accept(app, account, { eventName: 'Lagging', customer: { email: 'lag@example.com' } });
      const text = await eventually(async () => {
        const t = await scrape();
        return (sample(t, 'outbox_consumer_lag_events', { consumer: 'flow-triggers' }) ?? 0) >= 1 ? t : undefined;
      }, 'the flows to lag');
      expect(sample(text, 'outbox_consumer_lag_seconds', { consumer: 'flow-triggers' })).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'outbox_consumer_lag_events', { consumer: 'webhooks-outbox' })).toBeDefined();
    } finally {
      await holder.query('rollback');
      await holder.end();
    }
    await eventually(async () => sample(await scrape(), 'outbox_consumer_lag_events', { consumer: 'flow-triggers' }) === 0, 'the flows to catch up');
  });

  it('counts webhook delivery attempts by outcome', async () => {
    const receiver: Receiver = await startReceiver();
    try {
      const before = sample(await scrape(), 'webhook_deliveries_total', { outcome: 'succeeded' }) ?? 0;
      expect((await createWebhook(app, account, { callback: { url: receiver.url, auth: null }, topic: 'custom_event' })).status).toBe(201);
      await accept(app, account, { eventName: 'Viewed Product', customer: { email: 'hooked@example.com' } });
      await eventually(async () => (sample(await scrape(), 'webhook_deliveries_total', { outcome: 'succeeded' }) ?? 0) > before, 'the delivery to be counted');
      expect(receiver.received.length).toBeGreaterThanOrEqual(1);
    } finally {
      await receiver.close();
    }
  });

  it('reports readiness per check, and the delivery lag of each subscription with messages waiting', async () => {
    const text = await scrape();
    expect(sample(text, 'service_ready', { check: 'database' })).toBe(1);
    expect(sample(text, 'service_ready', { check: 'queue' })).toBe(1);
    expect(sample(text, 'service_ready', { check: 'pool:platform' })).toBe(1);

    const receiver: Receiver = await startReceiver();
    receiver.answer(() => 'hang');
    try {
      const behind = await app.createAccount('Lagging');
      const created = await createWebhook(app, behind, { callback: { url: receiver.url, auth: null }, topic: 'custom_event' });
      const subscription = created.body.webhook.id as string;
      await accept(app, behind, { eventName: 'Viewed Product', customer: { email: 'lag@example.com' } });
      const waiting = await eventually(async () => {
        const t = await scrape();
        return (sample(t, 'webhook_queued_messages', { subscription }) ?? 0) >= 1 ? t : undefined;
      }, 'the message to wait');
      expect(sample(waiting, 'webhook_delivery_lag_seconds', { subscription })).toBeGreaterThanOrEqual(0);
    } finally {
      await receiver.close();
    }
  });

  it('shows database pool use per pool, and declares the webhook delivery counter', async () => {
    const text = await scrape();
    for (const pool of ['platform', 'returns', 'inventory', 'events']) {
      expect(sample(text, 'db_pool_connections', { pool, state: 'total' }), pool).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'db_pool_max_connections', { pool }), pool).toBeGreaterThan(0);
    }
    expect(text).toContain('# TYPE webhook_deliveries_total counter');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
  });
});
