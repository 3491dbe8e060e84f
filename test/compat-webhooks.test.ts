import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { compat, seedReturn } from './support/compat.js';
import { eventually } from './support/eventually.js';
import { startReceiver, type ReceivedRequest, type Receiver } from './support/receiver.js';
import { call, commentOn } from './support/webhooks.js';

/**
 * Loop's webhook API on the compatibility face (decisions section 20): a store's compat key lists,
 * creates, changes and deletes Loop subscriptions; each delivery is the return as
 * `/warehouse/return/details` shows it, with `topic` and `trigger`, signed with `X-Loop-Signature`
 * as Loop documents it (base64 HMAC-SHA256 of the raw body, keyed with the secret), in order per return.
 */

type Body = Record<string, any>;

describe("Loop's webhook API (/api/v1/webhooks)", () => {
  const app = useTestApp({ WEBHOOK_RETRY_SCHEDULE: '1', WEBHOOK_TIMEOUT_MS: '1000' });
  const acme = useTestAccount(app, 'Loop hooks');
  const other = useTestAccount(app, 'Loop other');
  const receivers: Receiver[] = [];
  afterAll(async () => {
    for (const r of receivers) await r.close();
  });
  async function receiver() {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  }
  /** Loop's check: the signature is the base64 HMAC-SHA256 of the exact body, keyed with the secret's text. */
  const signedByLoop = (r: ReceivedRequest, secret: string) => {
    const expected = Buffer.from(createHmac('sha256', secret).update(r.body, 'utf8').digest('base64'));
    const got = Buffer.from(String(r.headers['x-loop-signature'] ?? ''));
    return got.length === expected.length && timingSafeEqual(got, expected);
  };
  const create = (body: Body, key = acme.compatKey) => compat(app, key, 'POST', '/api/v1/webhooks', body);

  it('creates (201 with the secret once), lists, changes and deletes with a compat key, scoped to its store', async () => {
    const r = await receiver();
    const made = await create({ url: r.url, topic: 'return', trigger: 'return.created' });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: expect.any(Number),
      topic: 'return',
      trigger: 'return.created',
      url: r.url,
      status: 'active',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      updated_at: expect.any(String),
      secret: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const id = made.body.id as number;
    const list = await compat(app, acme.compatKey, 'GET', '/api/2026-07/webhooks');
    expect(list.status).toBe(200);
    const { secret: _secret, ...shown } = made.body;
    expect(list.body.webhooks).toContainEqual(shown);
    // The same subscription on /v2.2: kind loop, with its health.
    const v2 = (await call(app, acme.apiSecret, 'GET', `/v2.2/stores/${acme.storeId}/webhooks`)).body.webhooks.find((w: Body) => w.loop);
    expect(v2).toMatchObject({ kind: 'loop', loop: { topic: 'return', trigger: 'return.created' }, topics: ['return'], status: 'active' });
    // Loop subscriptions are signed with one secret: no rotation.
    const rotate = await call(app, acme.apiSecret, 'POST', `/v2.2/webhooks/${v2.id}/rotate-secret`, {});
    expect(rotate.status).toBe(409);
    expect(rotate.body.type).toBe('/problems/webhook-secret-not-rotatable');

    // Another store's key neither sees nor changes it.
    expect((await compat(app, other.compatKey, 'GET', '/api/v1/webhooks')).body).toEqual({ webhooks: [] });
    expect((await compat(app, other.compatKey, 'DELETE', `/api/v1/webhooks/${id}`)).status).toBe(404);
    expect((await compat(app, other.compatKey, 'PUT', `/api/v1/webhooks/${id}`, { status: 'inactive' })).status).toBe(404);

    const paused = await compat(app, acme.compatKey, 'PUT', `/api/v1/webhooks/${id}`, { status: 'inactive', trigger: 'return.updated' });
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ id, status: 'inactive', trigger: 'return.updated' });
    expect((await compat(app, acme.compatKey, 'PUT', `/api/v1/webhooks/${id}`, { status: 'active' })).body.status).toBe('active');

    expect((await compat(app, acme.compatKey, 'DELETE', `/api/v1/webhooks/${id}`)).status).toBe(204);
    const again = await compat(app, acme.compatKey, 'DELETE', `/api/v1/webhooks/${id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: `Webhook ${id} was not found.` });
    expect((await compat(app, acme.compatKey, 'GET', '/api/v1/webhooks')).body.webhooks.map((w: Body) => w.id)).not.toContain(id);
    expect((await compat(app, acme.compatKey, 'DELETE', '/api/v1/webhooks/not-a-number')).status).toBe(404);
    // Without a key: Loop's 401 first.
    expect((await compat(app, undefined, 'POST', '/api/v1/webhooks', { url: r.url, topic: 'return', trigger: 'return.created' })).status).toBe(401);
  });

  it("refuses what Loop's validation refuses (422 in Laravel's shape), creating nothing", async () => {
    const before = (await compat(app, acme.compatKey, 'GET', '/api/v1/webhooks')).body.webhooks.length;
    const missing = await create({});
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({
      message: 'The url field is required. (and 2 more errors)',
      errors: { url: ['The url field is required.'], topic: ['The topic field is required.'], trigger: ['The trigger field is required.'] },
    });
    const wrong = await create({ url: 'https://example.com/hook', topic: 'orders', trigger: 'order.created', status: 'paused' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual({ topic: ['The selected topic is invalid.'], trigger: ['The selected trigger is invalid.'], status: ['The selected status is invalid.'] });
    const ssrf = await create({ url: 'https://10.0.0.1/hook', topic: 'return', trigger: 'return.created' });
    expect(ssrf.status).toBe(422);
    expect(ssrf.body.errors.url[0]).toContain('private');
    const notUrl = await create({ url: 'not a url', topic: 'return', trigger: 'return.created' });
    expect(notUrl.body.errors).toEqual({ url: ['The url field must be a valid URL.'] });
    expect((await compat(app, acme.compatKey, 'GET', '/api/v1/webhooks')).body.webhooks.length).toBe(before);
  });

  it('delivers the return as details shows it, signed with X-Loop-Signature, in order per return, for the trigger chosen', async () => {
    const account = await app.createAccount('Loop deliveries');
    const updated = await receiver();
    const createdOnly = await receiver();
    const closed = await receiver();
    const labels = await receiver();
    const hooks = await Promise.all([
      compat(app, account.compatKey, 'POST', '/api/v1/webhooks', { url: updated.url, topic: 'return', trigger: 'return.updated' }),
      compat(app, account.compatKey, 'POST', '/api/v1/webhooks', { url: createdOnly.url, topic: 'return', trigger: 'return.created' }),
      compat(app, account.compatKey, 'POST', '/api/v1/webhooks', { url: closed.url, topic: 'return', trigger: 'return.closed' }),
      compat(app, account.compatKey, 'POST', '/api/v1/webhooks', { url: labels.url, topic: 'label', trigger: 'label.updated' }),
    ]);
    for (const h of hooks) expect(h.status).toBe(201);
    const [updatedSecret, , closedSecret, labelSecret] = hooks.map((h) => h.body.secret as string);

    const ret = await seedReturn(app, account);
    await commentOn(app, account, ret.id, 'one');
    const ship = (status: string) =>
      app.graphql(`mutation($id: ID!, $s: ShipmentStatus!) { recordReturnShipmentEvent(returnId: $id, input: {status: $s, carrier: "UPS", trackingNumber: "1Z1"}) { id } }`, { id: ret.id, s: status }, account.apiSecret);
    expect((await ship('label_created')).errors).toBeUndefined();
    expect((await ship('in_transit')).errors).toBeUndefined();
    expect((await call(app, account.apiSecret, 'PUT', `/v2.2/returns/${ret.id}/status`, { status: 'complete' })).status).toBe(204);

    // return.updated: every change (creation excluded), in commit order.
    const got = await eventually(async () => (updated.received.length >= 4 ? updated.received : undefined), 'four return.updated deliveries');
    for (const r of got) expect(signedByLoop(r, updatedSecret!)).toBe(true);
    const bodies = got.map((r) => JSON.parse(r.body) as Body);
    expect(bodies.map((b) => [b.topic, b.trigger, b.id])).toEqual(Array(4).fill(['return', 'return.updated', ret.numericId]));
    expect(bodies.map((b) => b.label_status)).toEqual([null, 'new', 'in_transit', 'in_transit']);
    expect(bodies.map((b) => b.state)).toEqual(['open', 'open', 'open', 'closed']);
    // The last one is the return as details shows it now.
    const { topic: _t, trigger: _g, ...last } = bodies[3]!;
    const details = await compat(app, account.compatKey, 'GET', `/api/v1/warehouse/return/details?return_id=${ret.numericId}`);
    expect(last).toEqual(details.body);

    // return.created once; return.closed once, when it closed; label.updated when the label changed after it was made.
    const closing = await eventually(async () => closed.received[0], 'return.closed');
    expect(signedByLoop(closing, closedSecret!)).toBe(true);
    expect(JSON.parse(closing.body)).toMatchObject({ trigger: 'return.closed', state: 'closed', id: ret.numericId });
    const label = await eventually(async () => labels.received[0], 'label.updated');
    expect(signedByLoop(label, labelSecret!)).toBe(true);
    expect(JSON.parse(label.body)).toMatchObject({ topic: 'label', trigger: 'label.updated', label_status: 'in_transit', tracking_number: '1Z1' });
    // Markers: every change above was fanned out once the last return.updated arrived (each subscription's messages in the same transaction).
    await eventually(async () => createdOnly.received[0], 'return.created');
    expect(createdOnly.received.map((r) => JSON.parse(r.body).trigger)).toEqual(['return.created']);
    expect(closed.received).toHaveLength(1);
    expect(labels.received).toHaveLength(1);
  });
});
