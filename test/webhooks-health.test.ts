import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, useTestApp, type TestAccount, type TestApp } from './support/app.js';
import { eventually } from './support/eventually.js';
import { startSmtpServer } from './support/flows.js';
import { adjust, createLocation, upsertProduct } from './inventory-fixtures.js';
import { startReceiver, type Answer, type ReceivedRequest, type Receiver } from './support/receiver.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';
import { call, commentOn, createWebhook } from './support/webhooks.js';

/**
 * Decisions section 20, the /v2.2 side: endpoint health (failing since, last error, the success
 * rate, disabling after WEBHOOK_DISABLE_AFTER_HOURS of nothing but failures, the store told by a
 * `webhook.disabled` delivery and by email, re-enabling delivering what is owed in order), topics
 * and event types per subscription with the event type catalog, secret rotation with an overlap
 * (checked by the Standard Webhooks reference verifier), recovery of what was given up, resending
 * one message, and a delivery rate per subscription.
 */

type Body = Record<string, any>;

/** A receiver whose answer can be switched, keeping apart the requests it accepted (2xx). */
async function switchable(answer: Answer = { status: 204 }) {
  const receiver = await startReceiver();
  const accepted: ReceivedRequest[] = [];
  const state = { answer };
  receiver.answer((req) => {
    if (state.answer !== 'hang' && state.answer.status >= 200 && state.answer.status < 300) accepted.push(req);
    return state.answer;
  });
  return { receiver, accepted, set: (a: Answer) => (state.answer = a) };
}

async function newReturn(app: TestApp, account: TestAccount, externalId?: string): Promise<string> {
  const order = orderBody(externalId ? { id: externalId } : {}, [{ id: 'l1', quantity: 50, price: '3.00', sku: 'SKU-H', title: 'Mug' }]);
  expect((await pushOrder(app, account, order)).status).toBe(200);
  const created = await postReturn(app, account, returnBody(order.id as string, [{ lineItemId: 'l1', quantity: 1, reason: 'r' }]));
  expect(created.status).toBe(201);
  return created.body.return.id;
}

const parsed = (r: ReceivedRequest) => JSON.parse(r.body) as Body;

describe('endpoint health: disabled after the window of failures, the store told, re-enabled in order', () => {
  let app: TestApp;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  const receivers: Receiver[] = [];
  beforeAll(async () => {
    smtp = await startSmtpServer();
    // 0.002 hours: 7.2 s of nothing but failures; the schedule retries every second for longer than that.
    app = await startTestApp({
      WEBHOOK_DISABLE_AFTER_HOURS: '0.002',
      WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 30 }, () => '1').join(','),
      WEBHOOK_TIMEOUT_MS: '1000',
      SMTP_URL: smtp.url,
      SMTP_FROM: 'webhooks@example.com',
    });
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await app?.stop();
    await smtp?.close();
  });

  it('a receiver down longer than WEBHOOK_DISABLE_AFTER_HOURS is disabled; webhook.disabled and an email tell the store; a PUT delivers what is owed, in order', async () => {
    const account = await app.createAccount('Health');
    const contact = await app.graphql<{ setAccountContact: { contactEmail: string } }>(
      'mutation($a: ID!, $e: String) { setAccountContact(accountId: $a, contactEmail: $e) { contactEmail } }',
      { a: account.accountId, e: 'ops@merchant.example' },
      account.apiSecret,
    );
    expect(contact.data?.setAccountContact.contactEmail).toBe('ops@merchant.example');

    const down = await switchable({ status: 503 });
    const ops = await switchable();
    receivers.push(down.receiver, ops.receiver);
    const hook = await createWebhook(app, account, { callback: { url: down.receiver.url, auth: null }, topics: ['return'] });
    expect(hook.status).toBe(201);
    const id = hook.body.webhook.id as string;
    const operational = await createWebhook(app, account, { callback: { url: ops.receiver.url, auth: null }, topic: 'operational' });
    expect(operational.status).toBe(201);

    const returnId = await newReturn(app, account);
    await commentOn(app, account, returnId, 'first');

    // Failing, not yet disabled: the health shows it.
    const failing = await eventually(async () => {
      const w = (await call(app, account.apiSecret, 'GET', `/v2.2/webhooks/${id}`)).body.webhook;
      return w.failingSince && w.lastError === 'HTTP 503' ? w : undefined;
    }, 'the subscription to show it is failing');
    expect(failing.successRate24h).toBe(0);

    // The store is told by its operational subscription, signed like every delivery.
    const told = await eventually(async () => ops.accepted.find((r) => parsed(r).type === 'webhook.disabled'), 'the webhook.disabled delivery');
    const notice = new Webhook(operational.body.webhook.signingSecret).verify(told.body, told.headers as Record<string, string>) as Body;
    expect(notice).toMatchObject({ type: 'webhook.disabled', webhook: { id, url: down.receiver.url, topics: ['return'], kind: 'redo', lastError: 'HTTP 503' } });
    expect(notice.webhook.disabledReason).toContain('every delivery failed for 0.002 hours');

    const disabled = (await call(app, account.apiSecret, 'GET', `/v2.2/webhooks/${id}`)).body.webhook;
    expect(disabled).toMatchObject({ status: 'disabled', disabled: true, lastError: 'HTTP 503', successRate24h: 0 });
    expect(disabled.disabledReason).toBe(notice.webhook.disabledReason);
    // Not before the window: nothing but failures for at least 7.2 s.
    expect(Date.parse(disabled.disabledAt) - Date.parse(disabled.failingSince)).toBeGreaterThanOrEqual(7200);

    // And by email to the account's contact.
    const mail = await eventually(async () => smtp.mails.find((m) => m.to.includes('ops@merchant.example')), 'the email to the contact');
    expect(mail.subject).toBe(`Webhook subscription disabled: ${down.receiver.url}`);
    expect(mail.text).toContain(id);
    expect(mail.text).toContain('HTTP 503');

    // Dashboards see the same.
    const gql = await app.graphql<{ webhook: Body }>(
      'query($id: ID!) { webhook(id: $id) { status disabledReason failingSince lastError successRate24h topics eventTypes } }',
      { id },
      account.apiSecret,
    );
    expect(gql.data?.webhook).toMatchObject({ status: 'disabled', lastError: 'HTTP 503', successRate24h: 0, topics: ['return'], eventTypes: null });
    const window = { from: new Date(Date.now() - 3_600_000).toISOString(), until: new Date(Date.now() + 60_000).toISOString(), interval: 'HOUR' };
    const stats = await app.graphql<{ webhookStats: { subscriptions: Body[] } }>(
      'query($s: ID!, $w: TimeWindowInput!) { webhookStats(storeId: $s, window: $w) { subscriptions { webhookId status failingSince lastError successRate24h } } }',
      { s: account.storeId, w: window },
      account.apiSecret,
    );
    expect(stats.errors).toBeUndefined();
    expect(stats.data!.webhookStats.subscriptions.find((s) => s.webhookId === id)).toMatchObject({ status: 'disabled', lastError: 'HTTP 503', successRate24h: 0 });
    const metrics = await (await fetch(`${app.baseUrl}/metrics`, { headers: { authorization: `Bearer ${app.adminToken}` } })).text();
    expect(metrics).toMatch(/webhook_subscriptions_disabled_total\{reason="failing"\} [1-9]/);
    expect(metrics).toMatch(/webhook_disabled_subscriptions [1-9]/);

    // While disabled, changes keep being owed; the receiver comes back; a PUT re-enables.
    await commentOn(app, account, returnId, 'while disabled');
    down.set({ status: 204 });
    expect((await call(app, account.apiSecret, 'PUT', `/v2.2/webhooks/${id}`, { webhook: { callback: { url: down.receiver.url, auth: null } } })).status).toBe(204);
    const delivered = await eventually(async () => (down.accepted.length >= 3 ? down.accepted : undefined), 'the owed events after the PUT');
    expect(delivered.map((r) => parsed(r).type)).toEqual(['created', 'updated', 'updated']);
    expect(delivered.map((r) => parsed(r).return.id)).toEqual([returnId, returnId, returnId]);
    const enabled = (await call(app, account.apiSecret, 'GET', `/v2.2/webhooks/${id}`)).body.webhook;
    expect(enabled).toMatchObject({ status: 'active', disabled: false, disabledReason: null, disabledAt: null, failingSince: null });
    expect(enabled.successRate24h).toBeGreaterThan(0);
  });
});

describe('event types, rotation, recovery, rate', () => {
  const app = useTestApp({ WEBHOOK_RETRY_SCHEDULE: '1', WEBHOOK_TIMEOUT_MS: '1000' });
  const receivers: Receiver[] = [];
  afterAll(async () => {
    for (const r of receivers) await r.close();
  });
  async function receiver(answer?: Answer) {
    const r = await switchable(answer);
    receivers.push(r.receiver);
    return r;
  }

  it('GET /webhook-event-types lists every delivery of the OpenAPI document, with its topic and the JSON Schema of its body', async () => {
    const account = await app.createAccount('Catalog');
    const res = await call(app, account.apiSecret, 'GET', '/v2.2/webhook-event-types');
    expect(res.status).toBe(200);
    const types = res.body.eventTypes as { type: string; topic: string; description: string; schema: Body }[];
    const document = JSON.parse(readFileSync(new URL('../docs/openapi/v2.2.json', import.meta.url), 'utf8')) as { webhooks: Record<string, Body> };
    expect(types.map((t) => t.type)).toEqual(Object.keys(document.webhooks));
    for (const t of types) {
      expect(t.description).toBe(document.webhooks[t.type]!.post.summary);
      expect(t.type === 'webhook.disabled' ? t.topic === 'operational' : t.type.startsWith(`${t.topic}.`)).toBe(true);
      expect(t.schema.type).toBe('object');
      expect(t.schema.properties.type.const).toBe(t.type.includes('.') && t.topic !== 'operational' ? t.type.slice(t.topic.length + 1) : t.type);
    }
  });

  it('a subscription takes several topics and only the event types it chose; wrong choices are 400 with pointers, changing nothing', async () => {
    const account = await app.createAccount('Choices');
    const r = await receiver();
    const created = await createWebhook(app, account, {
      callback: { url: r.receiver.url, auth: null },
      topics: ['return', 'inventory_item'],
      eventTypes: ['return.updated', 'inventory_item.created'],
    });
    expect(created.status).toBe(201);
    expect(created.body.webhook).toMatchObject({ topic: 'return', topics: ['return', 'inventory_item'], eventTypes: ['return.updated', 'inventory_item.created'] });

    const returnId = await newReturn(app, account); // return.created: not chosen
    await commentOn(app, account, returnId, 'one'); // return.updated
    const location = await createLocation(app, account.storeId, 'Main');
    await upsertProduct(app, account.storeId, { sku: 'SKU-H', title: 'Mug' });
    const item = await adjust(app, account.storeId, { sku: 'SKU-H', locationId: location, delta: 3 }); // inventory_item.created
    await adjust(app, account.storeId, { sku: 'SKU-H', locationId: location, delta: 1 }); // inventory_item.updated: not chosen
    await commentOn(app, account, returnId, 'marker'); // committed after everything above: the fan-out routed them all once this arrives
    const got = await eventually(async () => (r.accepted.filter((x) => parsed(x).return).length >= 2 ? r.accepted : undefined), 'the marker');
    const seen = got.map((x) => parsed(x));
    expect(seen.filter((b) => b.return).map((b) => b.type)).toEqual(['updated', 'updated']);
    expect(seen.filter((b) => b.inventory_item).map((b) => [b.type, b.inventory_item.id])).toEqual([['created', item.id]]);

    const before = (await call(app, account.apiSecret, 'GET', `/v2.2/stores/${account.storeId}/webhooks`)).body.webhooks.length;
    const cases: [Body, string][] = [
      [{ topic: 'return', topics: ['return'] }, '/webhook/topics'],
      [{ topics: ['return'], eventTypes: ['inventory_item.created'] }, '/webhook/eventTypes/0'],
      [{ topics: ['return'], eventTypes: ['return.deleted'] }, '/webhook/eventTypes'],
      [{ topics: [] }, '/webhook/topics'],
      [{ topics: ['return', 'return'] }, '/webhook/topics'],
      [{ topic: 'return', maxDeliveriesPerSecond: 0 }, '/webhook/maxDeliveriesPerSecond'],
      [{}, '/webhook/topic'],
    ];
    for (const [choice, pointer] of cases) {
      const res = await createWebhook(app, account, { callback: { url: r.receiver.url, auth: null }, ...choice });
      expect(res.status, JSON.stringify(choice)).toBe(400);
      expect(res.body.type).toBe('/problems/validation-failed');
      const pointers = res.body.errors.map((e: { pointer: string }) => e.pointer) as string[];
      expect(pointers.some((p) => p.startsWith(pointer)), `${JSON.stringify(choice)}: ${pointers.join(', ')}`).toBe(true);
    }
    expect((await call(app, account.apiSecret, 'GET', `/v2.2/stores/${account.storeId}/webhooks`)).body.webhooks.length).toBe(before);
  });

  it('rotate-secret: both signatures during the overlap (each verified by standardwebhooks), only the new one after; a receiver switching secrets never fails', async () => {
    const account = await app.createAccount('Rotation');
    const r = await receiver();
    const created = await createWebhook(app, account, { callback: { url: r.receiver.url, auth: null }, topic: 'return' });
    const id = created.body.webhook.id as string;
    const first = created.body.webhook.signingSecret as string;
    // The receiver verifies each delivery with the secret it holds when the delivery arrives.
    let held = first;
    const failures: string[] = [];
    r.receiver.answer((req) => {
      try {
        new Webhook(held).verify(req.body, req.headers as Record<string, string>);
        r.accepted.push(req);
        return { status: 204 };
      } catch (err) {
        failures.push(String(err));
        return { status: 400 };
      }
    });
    const returnId = await newReturn(app, account);
    await eventually(async () => (r.accepted.length >= 1 ? true : undefined), 'the first delivery');
    expect(r.accepted[0]!.headers['webhook-signature']).not.toContain(' ');

    const rotated = await call(app, account.apiSecret, 'POST', `/v2.2/webhooks/${id}/rotate-secret`, { overlapSeconds: 3600 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.signingSecret).toMatch(/^whsec_/);
    expect(rotated.body.signingSecret).not.toBe(first);
    expect(Date.parse(rotated.body.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(3_500_000);
    const second = rotated.body.signingSecret as string;
    await commentOn(app, account, returnId, 'during the overlap');
    const overlapping = await eventually(async () => r.accepted[1], 'a delivery during the overlap');
    const signatures = String(overlapping.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    // The reference verifier accepts it with the old secret and with the new one.
    expect(new Webhook(first).verify(overlapping.body, overlapping.headers as Record<string, string>)).toMatchObject({ type: 'updated' });
    expect(new Webhook(second).verify(overlapping.body, overlapping.headers as Record<string, string>)).toMatchObject({ type: 'updated' });
    // The receiver switches to the new secret whenever it likes during the overlap.
    held = second;
    await commentOn(app, account, returnId, 'after the switch');
    await eventually(async () => r.accepted[2], 'a delivery after the switch');

    // Without an overlap the previous secret stops at once.
    const third = await call(app, account.apiSecret, 'POST', `/v2.2/webhooks/${id}/rotate-secret`, { overlapSeconds: 0 });
    expect(third.body.previousSecretExpiresAt).toBeNull();
    held = third.body.signingSecret;
    await commentOn(app, account, returnId, 'no overlap');
    const last = await eventually(async () => r.accepted[3], 'a delivery after a rotation without overlap');
    expect(String(last.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(() => new Webhook(second).verify(last.body, last.headers as Record<string, string>)).toThrow();
    expect(failures).toEqual([]);

    const bad = await call(app, account.apiSecret, 'POST', `/v2.2/webhooks/${id}/rotate-secret`, { overlapSeconds: -1 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].pointer).toBe('/overlapSeconds');
    const other = await app.createAccount('Rotation other');
    expect((await call(app, other.apiSecret, 'POST', `/v2.2/webhooks/${id}/rotate-secret`, {})).status).toBe(404);
  });

  it('recover sends again only what was given up since a time, in order per subject; one message can be resent', async () => {
    const account = await app.createAccount('Recovery');
    const r = await receiver({ status: 500 });
    const created = await createWebhook(app, account, { callback: { url: r.receiver.url, auth: null }, topic: 'return' });
    const id = created.body.webhook.id as string;
    const since = new Date(Date.now() - 1000).toISOString();
    const a = await newReturn(app, account);
    await commentOn(app, account, a, 'a-1');
    const b = await newReturn(app, account);
    // Schedule "1": two attempts each, then given up.
    const log = async () => (await call(app, account.apiSecret, 'GET', `/v2.2/webhooks/${id}/deliveries?page-size=100`)).body.deliveries as Body[];
    await eventually(async () => ((await log()).filter((d) => d.status === 'discarded').length === 3 ? true : undefined), 'three messages given up');
    r.set({ status: 204 });
    await commentOn(app, account, b, 'b-1'); // delivered: not to be recovered
    await eventually(async () => (r.accepted.length === 1 ? true : undefined), 'the live delivery');

    const recovered = await call(app, account.apiSecret, 'POST', `/v2.2/webhooks/${id}/recover`, { since });
    expect(recovered.status).toBe(202);
    expect(recovered.body).toEqual({ recovered: 3 });
    const all = await eventually(async () => (r.accepted.length >= 4 ? r.accepted : undefined), 'the recovered messages');
    const again = all.slice(1).map((x) => parsed(x));
    const ofA = again.filter((x) => x.return.id === a).map((x) => x.type);
    expect(ofA).toEqual(['created', 'updated']);
    expect(again.filter((x) => x.return.id === b).map((x) => x.type)).toEqual(['created']);
    // Each original once: asked again, nothing is left to recover (its copies were delivered).
    expect((await call(app, account.apiSecret, 'POST', `/v2.2/webhooks/${id}/recover`, { since })).body).toEqual({ recovered: 0 });

    // One message again, by the id the log shows: the same body, a new webhook-id.
    const live = (await log()).find((d) => d.status === 'succeeded' && d.subjectId === b && d.type === 'updated')!;
    expect((await call(app, account.apiSecret, 'POST', `/v2.2/webhooks/${id}/messages/${live.messageId}/resend`)).status).toBe(202);
    const resent = await eventually(async () => r.accepted[4], 'the resent message');
    expect(resent.body).toBe(all[0]!.body);
    expect(resent.headers['webhook-id']).not.toBe(all[0]!.headers['webhook-id']);

    const unknown = await call(app, account.apiSecret, 'POST', `/v2.2/webhooks/${id}/messages/msg_unknown/resend`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.type).toBe('/problems/webhook-message-not-found');
    const badSince = await call(app, account.apiSecret, 'POST', `/v2.2/webhooks/${id}/recover`, { since: 'yesterday' });
    expect(badSince.status).toBe(400);
    expect(badSince.body.errors[0].pointer).toBe('/since');
  });

  it('maxDeliveriesPerSecond: no second of the deliveries log holds more attempts than the limit', async () => {
    const account = await app.createAccount('Rate');
    const r = await receiver();
    const created = await createWebhook(app, account, { callback: { url: r.receiver.url, auth: null }, topic: 'return', maxDeliveriesPerSecond: 2 });
    expect(created.status).toBe(201);
    expect(created.body.webhook.maxDeliveriesPerSecond).toBe(2);
    const order = orderBody({}, [{ id: 'l1', quantity: 50, price: '3.00', sku: 'SKU-R', title: 'Plate' }]);
    expect((await pushOrder(app, account, order)).status).toBe(200);
    // Seven returns: seven lanes due at once.
    for (let i = 0; i < 7; i++) expect((await postReturn(app, account, returnBody(order.id as string, [{ lineItemId: 'l1', quantity: 1, reason: 'r' }]))).status).toBe(201);
    await eventually(async () => (r.accepted.length >= 7 ? true : undefined), 'seven deliveries', { timeoutMs: 30_000 });
    const log = (await call(app, account.apiSecret, 'GET', `/v2.2/webhooks/${created.body.webhook.id}/deliveries?page-size=100`)).body.deliveries as Body[];
    // Attempts are opened when their lane is leased, on the database clock the limit counts by.
    const perSecond = new Map<string, number>();
    for (const d of log) perSecond.set(d.createdAt.slice(0, 19), (perSecond.get(d.createdAt.slice(0, 19)) ?? 0) + 1);
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(2);
    expect(perSecond.size).toBeGreaterThanOrEqual(4);
  });
});
