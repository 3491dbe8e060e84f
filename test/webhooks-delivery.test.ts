import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { WEBHOOK_REPLAY_QUEUE } from '../webhooks/webhook.service.js';
import { useTestApp, type TestAccount } from './support/app.js';
import { query } from './support/database.js';
import { postEvent } from './support/events.js';
import { adjust, createLocation, createShipment, IN_TRANSIT, gql, upsertProduct } from './inventory-fixtures.js';
import { startReceiver, type ReceivedRequest, type Receiver } from './support/receiver.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';
import { call, commentOn, createWebhook } from './support/webhooks.js';
import { eventually } from './support/eventually.js';
import { seededRandom } from './support/random.js';

interface Subscribed {
  account: TestAccount;
  receiver: Receiver;
  id: string;
  secret: string;
}

describe('webhook delivery', () => {
  const app = useTestApp({ WEBHOOK_RETRY_SCHEDULE: '1,1,1', WEBHOOK_TIMEOUT_MS: '1000' });
  const receivers: Receiver[] = [];
  afterAll(async () => {
    for (const r of receivers) await r.close();
  });

  /** A fresh account (so no other test's events reach it) subscribed to `topic` with its own receiver. */
  async function subscribe(topic: string, token: string | null = 'receiver-token-0001'): Promise<Subscribed> {
    const account = await app.createAccount(`Acme ${topic}`);
    const receiver = await startReceiver();
    receivers.push(receiver);
    const created = await createWebhook(app, account, { callback: { url: receiver.url, auth: token ? { bearer: { token } } : null }, topic });
    expect(created.status).toBe(201);
    return { account, receiver, id: created.body.webhook.id, secret: created.body.webhook.signingSecret };
  }

  const verify = (s: Subscribed, r: ReceivedRequest) => new Webhook(s.secret).verify(r.body, r.headers as Record<string, string>) as any;
  const received = (s: Subscribed, n: number, what = `${n} deliveries`) => eventually(async () => (s.receiver.received.length >= n ? s.receiver.received : undefined), what);
  const deliveries = async (s: Subscribed) => (await call(app, s.account.apiSecret, 'GET', `/v2.2/webhooks/${s.id}/deliveries?page-size=500`)).body.deliveries as any[];
  /** Every event queued for the subscription, sent or not. */
  const messagesOf = (s: Subscribed) => query<{ subject_id: string }>(app.databaseUrl, 'select subject_id from webhooks.message where subscription_id = $1', [s.id]);
  const unfinishedReplays = async (s: Subscribed) =>
    (await app.service.runtime.boss.findJobs(WEBHOOK_REPLAY_QUEUE, { data: { subscriptionId: s.id } })).filter((j) => j.state !== 'completed').length;

  async function newReturn(account: TestAccount): Promise<string> {
    const order = orderBody({}, [{ id: 'l1', quantity: 50, price: '3.00', sku: 'SKU-W', title: 'Cup' }]);
    expect((await pushOrder(app, account, order)).status).toBe(200);
    const created = await postReturn(app, account, returnBody(order.id as string, [{ lineItemId: 'l1', quantity: 1, reason: 'r' }]));
    expect(created.status).toBe(201);
    return created.body.return.id;
  }

  it('POSTs each change of a return, signed (verified by standardwebhooks), with the bearer token, in order', async () => {
    const s = await subscribe('return');
    const id = await newReturn(s.account);
    await commentOn(app, s.account, id, 'first');
    expect((await call(app, s.account.apiSecret, 'PUT', `/v2.2/returns/${id}/status`, { status: 'flagged' })).status).toBe(204);
    const got = await received(s, 3);
    const bodies = got.map((r) => verify(s, r));
    expect(bodies.map((b) => b.type)).toEqual(['created', 'updated', 'updated']);
    expect(bodies.map((b) => b.return.status)).toEqual(['open', 'open', 'flagged']);
    expect(bodies[0]).toEqual({ type: 'created', at: expect.any(String), merchantName: 'Acme return store', return: expect.objectContaining({ id }), order: expect.any(Object) });
    for (const r of got) {
      expect(r.headers.authorization).toBe('Bearer receiver-token-0001');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['webhook-id']).toMatch(/^msg_/);
      expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    }
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(3);
    const log = await eventually(async () => {
      const rows = await deliveries(s);
      return rows.length === 3 && rows.every((d) => d.status === 'succeeded') ? rows : undefined;
    }, 'the log to show 3 successes');
    expect(log[0]).toEqual({
      id: expect.stringMatching(/^dlv_/),
      webhookId: s.id,
      messageId: expect.stringMatching(/^msg_/),
      eventId: expect.stringMatching(/^evt_/),
      type: 'updated',
      subjectId: id,
      attempt: 1,
      status: 'succeeded',
      responseStatus: 204,
      durationMs: expect.any(Number),
      error: null,
      createdAt: expect.any(String),
    });
    expect(log.map((d) => d.type)).toEqual(['updated', 'updated', 'created']);
  });

  it('delivers inventory items, inbound shipments and processed custom events with their payloads', async () => {
    const items = await subscribe('inventory_item', null);
    const locationId = await createLocation(app, items.account.storeId, 'Main');
    await upsertProduct(app, items.account.storeId, { sku: 'SKU-I', title: 'Lamp' });
    await adjust(app, items.account.storeId, { sku: 'SKU-I', locationId, delta: 5 });
    const [item] = await received(items, 1);
    expect(item!.headers.authorization).toBeUndefined();
    expect(verify(items, item!)).toEqual({ type: 'created', at: expect.any(String), inventory_item: expect.objectContaining({ sku: 'SKU-I', quantity: 5 }) });

    const shipments = await subscribe('inbound_shipment');
    const loc = await createLocation(app, shipments.account.storeId, 'Dock');
    const productId = await upsertProduct(app, shipments.account.storeId, { sku: 'SKU-S', title: 'Box' });
    const shipment = await createShipment(app, shipments.account.storeId, { locationId: loc, items: [{ productId, quantity: 3 }] });
    await gql(app, IN_TRANSIT, { id: shipment.id });
    const got = await received(shipments, 2);
    expect(got.map((r) => verify(shipments, r)).map((b) => [b.type, b.inbound_shipment.status])).toEqual([
      ['created', 'PENDING'],
      ['updated', 'IN_TRANSIT'],
    ]);

    const events = await subscribe('custom_event');
    expect((await postEvent(app, events.account, { eventName: 'Viewed', customer: { email: 'eve@example.com' }, data: { page: 'home' } })).status).toBe(202);
    const [event] = await received(events, 1);
    expect(verify(events, event!)).toEqual({
      type: 'created',
      at: expect.any(String),
      event: expect.objectContaining({ eventName: 'Viewed', data: { page: 'home' } }),
      customer: expect.objectContaining({ email: 'eve@example.com' }),
    });
  });

  it('retries a failed event with the same webhook-id while the later one waits, then delivers both in order', async () => {
    const s = await subscribe('return');
    let failures = 2;
    s.receiver.answer(() => (failures-- > 0 ? { status: 500 } : { status: 200 }));
    const id = await newReturn(s.account);
    await commentOn(app, s.account, id, 'later');
    const got = await received(s, 4);
    const ids = got.map((r) => r.headers['webhook-id']);
    expect(ids[0]).toBe(ids[1]);
    expect(ids[1]).toBe(ids[2]);
    expect(ids[3]).not.toBe(ids[0]);
    expect(got.map((r) => verify(s, r).type)).toEqual(['created', 'created', 'created', 'updated']);
    const log = await eventually(async () => ((await deliveries(s)).length === 4 ? deliveries(s) : undefined), 'four log rows');
    expect(log.map((d) => [d.type, d.attempt, d.status, d.responseStatus])).toEqual([
      ['updated', 1, 'succeeded', 200],
      ['created', 3, 'succeeded', 200],
      ['created', 2, 'failed', 500],
      ['created', 1, 'failed', 500],
    ]);
    expect(log[3].error).toBe('HTTP 500');
  });

  it('discards an event after the schedule (1,1,1: four attempts), logs it, and moves on to the next', async () => {
    const s = await subscribe('return');
    s.receiver.answer((r) => (JSON.parse(r.body).type === 'created' ? { status: 503 } : { status: 204 }));
    const id = await newReturn(s.account);
    await commentOn(app, s.account, id, 'after the discarded one');
    const got = await received(s, 5);
    expect(got.map((r) => JSON.parse(r.body).type)).toEqual(['created', 'created', 'created', 'created', 'updated']);
    const log = await eventually(async () => {
      const rows = await deliveries(s);
      return rows.length === 5 && rows[0].status === 'succeeded' ? rows : undefined;
    }, 'the discard and the next success');
    expect(log.map((d) => [d.type, d.attempt, d.status])).toEqual([
      ['updated', 1, 'succeeded'],
      ['created', 4, 'discarded'],
      ['created', 3, 'failed'],
      ['created', 2, 'failed'],
      ['created', 1, 'failed'],
    ]);
  });

  it('honours Retry-After on 429 (waits longer than the schedule asks)', async () => {
    const s = await subscribe('return');
    let first = true;
    s.receiver.answer(() => {
      if (!first) return { status: 200 };
      first = false;
      return { status: 429, headers: { 'retry-after': '3' } };
    });
    await newReturn(s.account);
    const got = await received(s, 2);
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(2900);
    expect(got[1]!.headers['webhook-id']).toBe(got[0]!.headers['webhook-id']);
  });

  it('a receiver slower than WEBHOOK_TIMEOUT_MS is a failed attempt ("timed out"), retried', async () => {
    const s = await subscribe('return');
    let first = true;
    s.receiver.answer(() => {
      if (!first) return { status: 200 };
      first = false;
      return 'hang';
    });
    await newReturn(s.account);
    await received(s, 2);
    const log = await eventually(async () => ((await deliveries(s)).length === 2 ? deliveries(s) : undefined), 'two attempts logged');
    expect(log[1]).toMatchObject({ attempt: 1, status: 'failed', responseStatus: null, error: 'timed out after 1000 ms' });
    expect(log[0]).toMatchObject({ attempt: 2, status: 'succeeded' });
  });

  it('410 disables the subscription; later events wait in order and go out after a PUT re-enables it', async () => {
    const s = await subscribe('return');
    let gone = true;
    s.receiver.answer(() => (gone ? { status: 410 } : { status: 200 }));
    const id = await newReturn(s.account);
    await received(s, 1);
    const disabled = await eventually(async () => {
      const w = (await call(app, s.account.apiSecret, 'GET', `/v2.2/webhooks/${s.id}`)).body.webhook;
      return w.disabled ? w : undefined;
    }, 'the subscription to be disabled');
    expect(disabled.disabled).toBe(true);
    // The marker: a second subscription of the store gets the same two changes. The disabled lane is
    // due all along (its head waits to be sent again), so by the time the marker has both, every
    // claim since would have opened an attempt on it, had it been sendable.
    const marker = await startReceiver();
    receivers.push(marker);
    expect((await createWebhook(app, s.account, { callback: { url: marker.url, auth: null }, topic: 'return' })).status).toBe(201);
    await commentOn(app, s.account, id, 'one');
    await commentOn(app, s.account, id, 'two');
    await eventually(async () => marker.received.length >= 2, 'the marker subscription to get both changes');
    expect(s.receiver.received).toHaveLength(1);
    const log = await deliveries(s);
    expect(log.map((d) => [d.attempt, d.status, d.responseStatus])).toEqual([[1, 'failed', 410]]);

    gone = false;
    const put = await call(app, s.account.apiSecret, 'PUT', `/v2.2/webhooks/${s.id}`, { webhook: { callback: { url: s.receiver.url, auth: null } } });
    expect(put.status).toBe(204);
    const got = await received(s, 4);
    expect(got.map((r) => [JSON.parse(r.body).type, JSON.parse(r.body).return.notes.length])).toHaveLength(4);
    expect(got.slice(1).map((r) => JSON.parse(r.body).type)).toEqual(['created', 'updated', 'updated']);
    expect(got[1]!.headers['webhook-id']).toBe(got[0]!.headers['webhook-id']);
    expect((await call(app, s.account.apiSecret, 'GET', `/v2.2/webhooks/${s.id}`)).body.webhook.disabled).toBe(false);
  });

  it('replay re-sends the events since start, in order, as new messages', async () => {
    const s = await subscribe('return');
    const id = await newReturn(s.account);
    await commentOn(app, s.account, id, 'a');
    await commentOn(app, s.account, id, 'b');
    const original = await received(s, 3);
    const res = await call(app, s.account.apiSecret, 'POST', `/v2.2/webhooks/${s.id}/replay`, { start: new Date(Date.now() - 60_000).toISOString() });
    expect(res.status).toBe(202);
    const all = await received(s, 6);
    expect(all.slice(3).map((r) => r.body)).toEqual(original.slice(0, 3).map((r) => r.body));
    const ids = new Set(all.map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(6);
    // A start after everything replays nothing: once its job is done (the marker), no message was
    // added, so nothing more can be sent.
    await call(app, s.account.apiSecret, 'POST', `/v2.2/webhooks/${s.id}/replay`, { start: new Date(Date.now() + 60_000).toISOString() });
    await eventually(async () => (await unfinishedReplays(s)) === 0, 'the replay job to finish');
    expect(await messagesOf(s)).toHaveLength(6);
    expect(s.receiver.received).toHaveLength(6);
  });

  it('backfill: true sends one backfill event per existing subject, then the live changes after it', async () => {
    const account = await app.createAccount('Backfill');
    const first = await newReturn(account);
    const second = await newReturn(account);
    await commentOn(app, account, first, 'before the subscription');
    const locationId = await createLocation(app, account.storeId, 'Main');
    await upsertProduct(app, account.storeId, { sku: 'SKU-B', title: 'Bowl' });
    await adjust(app, account.storeId, { sku: 'SKU-B', locationId, delta: 2 });
    const receiver = await startReceiver();
    receivers.push(receiver);
    const created = await createWebhook(app, account, { callback: { url: receiver.url, auth: null }, topic: 'return', backfill: true });
    expect(created.status).toBe(201);
    const items = await startReceiver();
    receivers.push(items);
    expect((await createWebhook(app, account, { callback: { url: items.url, auth: null }, topic: 'inventory_item', backfill: true })).status).toBe(201);
    const got = await eventually(async () => (receiver.received.length >= 2 ? receiver.received : undefined), 'the backfill');
    const bodies = got.map((r) => JSON.parse(r.body));
    expect(bodies.map((b) => b.type)).toEqual(['backfill', 'backfill']);
    expect(bodies.map((b) => b.return.id).sort()).toEqual([first, second].sort());
    expect(bodies.find((b) => b.return.id === first).return.notes).toHaveLength(1);
    expect(bodies[0]).toMatchObject({ merchantName: 'Backfill store', order: expect.any(Object) });
    await commentOn(app, account, first, 'after');
    const more = await eventually(async () => (receiver.received.length >= 3 ? receiver.received : undefined), 'the live change');
    expect(JSON.parse(more[2]!.body)).toMatchObject({ type: 'updated', return: { id: first } });
    const [item] = await eventually(async () => (items.received.length >= 1 ? items.received : undefined), 'the item backfill');
    expect(JSON.parse(item!.body)).toMatchObject({ type: 'backfill', inventory_item: { sku: 'SKU-B', quantity: 2 } });
  });

  it("never delivers another account's events or another topic's", async () => {
    const s = await subscribe('return');
    const stranger = await app.createAccount('Stranger');
    await newReturn(stranger);
    const locationId = await createLocation(app, s.account.storeId, 'Other topic');
    await upsertProduct(app, s.account.storeId, { sku: 'SKU-X', title: 'X' });
    await adjust(app, s.account.storeId, { sku: 'SKU-X', locationId, delta: 1 });
    const mine = await newReturn(s.account);
    const [only] = await received(s, 1);
    expect(JSON.parse(only!.body).return.id).toBe(mine);
    // `mine` is the marker: the fan-out routes events in commit order, so the stranger's return and the
    // stock change, committed before it, were routed by the time it went out. Nothing else was queued.
    expect((await messagesOf(s)).map((m) => m.subject_id)).toEqual([mine]);
    expect(s.receiver.received).toHaveLength(1);
  });

  it('a flapping receiver: 50 subjects x 20 changes, every event succeeds exactly once, in order per subject, stable webhook-ids', async () => {
    const s = await subscribe('return');
    // Fails about a third of the attempts at random; the schedule (1,1,1) gives each event four tries,
    // so the receiver fails an event at most three times in a row.
    const random = seededRandom();
    const failuresInARow = new Map<string, number>();
    s.receiver.answer((r) => {
      const id = r.headers['webhook-id'] as string;
      const n = failuresInARow.get(id) ?? 0;
      if (n < 3 && random() < 0.33) {
        failuresInARow.set(id, n + 1);
        return { status: random() < 0.5 ? 500 : 503 };
      }
      return { status: 200 };
    });
    const order = orderBody({}, [{ id: 'l1', quantity: 500, price: '1.00', sku: 'SKU-F' }]);
    await pushOrder(app, s.account, order);
    const subjects: string[] = [];
    for (let i = 0; i < 50; i++) {
      const created = await postReturn(app, s.account, returnBody(order.id as string, [{ lineItemId: 'l1', quantity: 1, reason: 'r' }]));
      subjects.push(created.body.return.id);
    }
    // 19 comments per return, interleaved across returns, a few in parallel.
    for (let round = 1; round <= 19; round++) {
      await Promise.all(subjects.map((id) => commentOn(app, s.account, id, `c${round}`)));
    }
    const expected = 50 * 20;
    await eventually(async () => {
      const [row] = await query<{ n: number }>(app.databaseUrl, `select count(*)::int as n from webhooks.message where subscription_id = $1 and state = 'succeeded'`, [s.id]);
      return row!.n === expected ? true : undefined;
    }, 'every event delivered', { timeoutMs: 120_000 });
    const firstSeen = new Map<string, ReceivedRequest>();
    const answered = s.receiver.received;
    for (const r of answered) if (!firstSeen.has(r.headers['webhook-id'] as string)) firstSeen.set(r.headers['webhook-id'] as string, r);
    // The receiver's own answers are not recorded; the service's log says which attempt succeeded.
    const log = await query<{ message_id: string; status: string }>(app.databaseUrl, `select message_id, status from webhooks.attempt where subscription_id = $1`, [s.id]);
    const succeededIds = log.filter((l) => l.status === 'succeeded').map((l) => l.message_id);
    expect(succeededIds).toHaveLength(expected);
    expect(new Set(succeededIds).size).toBe(expected);
    expect(log.filter((l) => l.status === 'discarded')).toHaveLength(0);
    // One webhook-id per event, whatever its retries: 1,000 ids, each of them a success.
    expect(firstSeen.size).toBe(expected);
    for (const id of succeededIds) expect(firstSeen.has(id)).toBe(true);
    // Per subject: the comments arrive in commit order (the last request per webhook-id is its success;
    // the order of first sight is the order of sending, since a later event is only sent after).
    const bySubject = new Map<string, number[]>();
    for (const r of answered) {
      const body = verify(s, r);
      const seq = body.return.notes.length;
      const list = bySubject.get(body.return.id) ?? [];
      if (list[list.length - 1] !== seq) list.push(seq);
      bySubject.set(body.return.id, list);
    }
    expect(bySubject.size).toBe(50);
    for (const [subject, seqs] of bySubject) expect(seqs, subject).toEqual(Array.from({ length: 20 }, (_, i) => i));
  }, 180_000);
});
