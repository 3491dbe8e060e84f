import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN } from './support/app.js';
import { query } from './support/database.js';
import { useServiceProcess } from './support/processes.js';
import { startReceiver, type Receiver } from './support/receiver.js';
import { orderBody, returnBody } from './support/returns.js';
import { eventually } from './support/eventually.js';

/**
 * The service as `npm start` runs it, in a child process that is SIGKILLed with a delivery in
 * flight and changes committed but not yet delivered: after a restart every event arrives, in
 * order per subject, the interrupted one under the same webhook-id.
 */
describe('webhook delivery across a killed process', () => {
  const app = useServiceProcess({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1', WEBHOOK_TIMEOUT_MS: '1000' });
  const start = () => app.start();
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver?.close());
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const res = await fetch(`${app.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };

  it('loses nothing, keeps the order per subject, and re-sends the interrupted attempt with the same webhook-id', { timeout: 150_000 }, async () => {
    await start();
    const created = await call('POST', '/graphql', TEST_ADMIN_TOKEN, { query: 'mutation { createAccount(input: {name: "Crash", storeName: "Crash store"}) { storeId apiSecret } }' });
    const { storeId, apiSecret } = created.body.data.createAccount as { storeId: string; apiSecret: string };
    const hook = await call('POST', `/v2.2/stores/${storeId}/webhooks`, apiSecret, { webhook: { callback: { url: receiver.url, auth: null }, topic: 'return' } });
    expect(hook.status).toBe(201);
    const secret = hook.body.webhook.signingSecret as string;

    // The receiver holds the first delivery of the first return's first comment open: that is the
    // attempt in flight when the process dies.
    let held = false;
    receiver.answer((r) => {
      const body = JSON.parse(r.body);
      if (!held && body.type === 'updated' && body.return.notes.length === 1) {
        held = true;
        return 'hang';
      }
      return { status: 200 };
    });
    const order = orderBody({ id: 'CRASH-W' }, [{ id: 'l1', quantity: 10, price: '1.00' }]);
    expect((await call('POST', `/v2.2/stores/${storeId}/custom/orders`, apiSecret, order)).status).toBe(200);
    const returns: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await call('POST', `/v2.2/stores/${storeId}/returns`, apiSecret, returnBody('CRASH-W', [{ lineItemId: 'l1', quantity: 1, reason: 'r' }]));
      expect(r.status).toBe(201);
      returns.push(r.body.return.id);
    }
    for (const id of returns) expect((await call('POST', `/v2.2/returns/${id}/comments`, apiSecret, { comment: { message: 'one' } })).status).toBe(201);
    await eventually(async () => held, 'the held delivery', { timeoutMs: 30_000 });
    // More changes, committed; then the process dies before (most of) them are delivered.
    for (const id of returns) expect((await call('POST', `/v2.2/returns/${id}/comments`, apiSecret, { comment: { message: 'two' } })).status).toBe(201);
    await app.kill();
    const inFlightId = receiver.received.find((r) => JSON.parse(r.body).type === 'updated' && JSON.parse(r.body).return.notes.length === 1)!.headers['webhook-id'];

    await start();
    // 3 returns x (created + 2 comments) = 9 events, each succeeded exactly once.
    await eventually(async () => {
      const [row] = await query<{ n: number }>(app.databaseUrl, `select count(*)::int as n from webhooks.message where state = 'succeeded'`);
      return row!.n === 9;
    }, 'all nine events delivered', { timeoutMs: 60_000 });
    const seen = receiver.received.map((r) => ({ id: r.headers['webhook-id'] as string, body: new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as any }));
    expect(new Set(seen.map((s) => s.id)).size).toBe(9);
    // The interrupted event was sent again under its webhook-id.
    expect(seen.filter((s) => s.id === inFlightId).length).toBeGreaterThanOrEqual(2);
    for (const id of returns) {
      const notes = seen.filter((s) => s.body.return.id === id).map((s) => s.body.return.notes.length);
      // In order per subject (a repeat of the interrupted one is the same message, not a reordering).
      expect(notes.filter((n, i) => i === 0 || notes[i - 1] !== n), id).toEqual([0, 1, 2]);
    }
    // The interrupted attempt is logged as such.
    const log = await call('GET', `/v2.2/webhooks/${hook.body.webhook.id}/deliveries?page-size=100`, apiSecret);
    expect(log.body.deliveries.some((d: any) => d.status === 'failed' && /interrupted/.test(d.error))).toBe(true);
  });
});
