import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN } from './support/app.js';
import { consumedEvents, query } from './support/database.js';
import { eventually } from './support/eventually.js';
import { useServiceProcess } from './support/processes.js';
import { startReceiver, type Receiver } from './support/receiver.js';

/**
 * Outbox consumers across a killed process: the service as `npm start` runs it is SIGKILLed while
 * the webhook fan-out and the flows are each in the middle of a pass (their work written, not
 * committed). After a restart each event has taken effect exactly once per consumer: one webhook
 * message per subscription, one run per flow.
 */
describe('outbox consumers across a killed process', () => {
  const app = useServiceProcess({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
  const start = () => app.start();
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver?.close());
  const call = async (path: string, token: string, body: unknown) => {
    const res = await fetch(`${app.baseUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };

  it('applies each event once per consumer after a crash in the middle of their passes', { timeout: 180_000 }, async () => {
    await start();
    const created = await call('/graphql', TEST_ADMIN_TOKEN, { query: 'mutation { createAccount(input: {name: "Crash", storeName: "Crash store"}) { storeId apiSecret } }' });
    const { storeId, apiSecret } = created.body.data.createAccount as { storeId: string; apiSecret: string };
    expect((await call(`/v2.2/stores/${storeId}/webhooks`, apiSecret, { webhook: { callback: { url: `${receiver.url}/hook`, auth: null }, topic: 'custom_event' } })).status).toBe(201);
    const flow = await call('/graphql', apiSecret, {
      query: 'mutation($s: ID!, $i: FlowInput!) { createFlow(storeId: $s, input: $i) { id } }',
      variables: { s: storeId, i: { name: 'Crash', trigger: { eventName: 'Crash' }, steps: [{ webhook: { url: `${receiver.url}/flow` } }] } },
    });
    const flowId = flow.body.data.createFlow.id as string;

    // Each consumer's pass stalls once it has written its work, so the kill lands in the middle of it. (The
    // killed process's sessions end when their sleep does: PostgreSQL notices a lost client only then.)
    await query(
      app.databaseUrl,
      `create function events.stall() returns trigger language plpgsql as $$ begin perform pg_sleep(10); return null; end $$;
       create trigger stall after insert on webhooks.message for each statement execute function events.stall();
       create trigger stall after insert on events.flow_run for each statement execute function events.stall();`,
    );
    const n = 20;
    const events = Array.from({ length: n }, (_, i) => ({ eventName: 'Crash', uniqueId: `crash-${i}`, customer: { email: `crash${i}@example.com` } }));
    expect((await call(`/v2.2/stores/${storeId}/events/bulk`, apiSecret, { events })).status).toBe(202);
    await eventually(async () => {
      const [row] = await query<{ n: number }>(app.databaseUrl, `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event = 'PgSleep'`);
      return row!.n >= 2;
    }, 'the fan-out and the flows to be in the middle of their passes');
    await app.kill();
    await query(app.databaseUrl, 'drop trigger stall on webhooks.message; drop trigger stall on events.flow_run');
    // Their work rolled back with them.
    expect(await query(app.databaseUrl, `select 1 from webhooks.message`)).toEqual([]);
    expect(await query(app.databaseUrl, `select 1 from events.flow_run`)).toEqual([]);

    await start();
    const stored = `e.type = 'custom_event.created' and e.store_id = $2`;
    await consumedEvents(app.databaseUrl, 'webhooks-outbox', stored, [storeId], n);
    await consumedEvents(app.databaseUrl, 'flow-triggers', stored, [storeId], n);
    const messages = await query<{ event_id: string; n: number }>(app.databaseUrl, 'select event_id, count(*)::int as n from webhooks.message group by event_id');
    expect(messages).toHaveLength(n);
    expect(messages.every((m) => m.n === 1)).toBe(true);
    const runs = await query<{ event_id: string; n: number }>(app.databaseUrl, 'select event_id, count(*)::int as n from events.flow_run where flow_id = $1 group by event_id', [flowId]);
    expect(runs).toHaveLength(n);
    expect(runs.every((r) => r.n === 1)).toBe(true);
    // And they went out: one delivery per event, one flow webhook per run.
    await eventually(async () => receiver.received.filter((r) => r.path.endsWith('/hook')).length >= n && receiver.received.filter((r) => r.path.endsWith('/flow')).length >= n, 'the deliveries');
    expect(new Set(receiver.received.filter((r) => r.path.endsWith('/hook')).map((r) => r.headers['webhook-id'])).size).toBe(n);
  });
});
