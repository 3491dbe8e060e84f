import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { sweep } from '../webhooks/delivery.service.js';
import { useTestAccount, useTestApp } from './support/app.js';
import { query } from './support/database.js';
import { seededRandom } from './support/random.js';
import { startReceiver, type Receiver } from './support/receiver.js';
import { eventually } from './support/eventually.js';
import { call, createWebhook } from './support/webhooks.js';

describe('webhook subscriptions (REST)', () => {
  // Only 127.0.0.1 is allowed here, so `localhost` and the other cases meet the SSRF rules.
  const app = useTestApp({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
  const acme = useTestAccount(app, 'Acme');
  const other = useTestAccount(app, 'Other');

  const hook = (extra: Record<string, unknown> = {}) => ({ callback: { url: 'http://127.0.0.1:9/hook', auth: { bearer: { token: 'subscriber-token-1234' } } }, topic: 'return', ...extra });

  it('creates (201, signing secret once, token masked), reads, lists newest first', async () => {
    const created = await createWebhook(app, acme, hook());
    expect(created.status).toBe(201);
    const w = created.body.webhook;
    expect(w).toEqual({
      id: expect.stringMatching(/^whk_/),
      callback: { url: 'http://127.0.0.1:9/hook', auth: { bearer: { token: '****1234' } } },
      topic: 'return',
      topics: ['return'],
      eventTypes: null,
      kind: 'redo',
      loop: null,
      externalId: null,
      status: 'active',
      disabled: false,
      disabledReason: null,
      disabledAt: null,
      failingSince: null,
      lastError: null,
      successRate24h: null,
      maxDeliveriesPerSecond: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      signingSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
    });
    const read = await call(app, acme.apiSecret, 'GET', `/v2.2/webhooks/${w.id}`);
    expect(read.status).toBe(200);
    const { signingSecret: _secret, ...shown } = w;
    expect(read.body).toEqual({ webhook: shown });
    expect(JSON.stringify(read.body)).not.toContain('subscriber-token');

    const second = await createWebhook(app, acme, { callback: { url: 'http://127.0.0.1:9/other', auth: null }, topic: 'inventory_item' });
    expect(second.status).toBe(201);
    expect(second.body.webhook.callback.auth).toBeNull();
    const list = await call(app, acme.apiSecret, 'GET', `/v2.2/stores/${acme.storeId}/webhooks?page-size=1`);
    expect(list.status).toBe(200);
    expect(list.body.webhooks.map((x: any) => x.id)).toEqual([second.body.webhook.id]);
    const next = list.headers.get('x-page-next');
    expect(next).toBeTruthy();
    const page2 = await call(app, acme.apiSecret, 'GET', `/v2.2/stores/${acme.storeId}/webhooks?page-size=1&page-continue=${encodeURIComponent(next!)}`);
    expect(page2.body.webhooks.map((x: any) => x.id)).toEqual([w.id]);
    expect(page2.body.webhooks[0].signingSecret).toBeUndefined();
  });

  it('the same externalId again updates the subscription and answers 200 without the secret', async () => {
    const first = await createWebhook(app, acme, hook({ externalId: 'erp-1' }));
    expect(first.status).toBe(201);
    const again = await createWebhook(app, acme, hook({ externalId: 'erp-1', topic: 'inbound_shipment', callback: { url: 'http://127.0.0.1:9/v2', auth: null } }));
    expect(again.status).toBe(200);
    expect(again.body.webhook).toMatchObject({ id: first.body.webhook.id, topic: 'inbound_shipment', externalId: 'erp-1', callback: { url: 'http://127.0.0.1:9/v2', auth: null } });
    expect(again.body.webhook.signingSecret).toBeUndefined();
    // Racing creations with one externalId make one subscription.
    const raced = await Promise.all([1, 2, 3, 4].map(() => createWebhook(app, acme, hook({ externalId: 'erp-race' }))));
    expect(raced.map((r) => r.status).sort()).toEqual([200, 200, 200, 201]);
    expect(new Set(raced.map((r) => r.body.webhook.id)).size).toBe(1);
  });

  it('PUT replaces the callback (204); DELETE removes (204), then 404', async () => {
    const { body } = await createWebhook(app, acme, hook());
    const id = body.webhook.id;
    const put = await call(app, acme.apiSecret, 'PUT', `/v2.2/webhooks/${id}`, { webhook: { callback: { url: 'http://127.0.0.1:9/new', auth: { bearer: { token: 'abcdefgh9876' } } } } });
    expect(put.status).toBe(204);
    const read = await call(app, acme.apiSecret, 'GET', `/v2.2/webhooks/${id}`);
    expect(read.body.webhook.callback).toEqual({ url: 'http://127.0.0.1:9/new', auth: { bearer: { token: '****9876' } } });
    expect((await call(app, acme.apiSecret, 'DELETE', `/v2.2/webhooks/${id}`)).status).toBe(204);
    expect((await call(app, acme.apiSecret, 'GET', `/v2.2/webhooks/${id}`)).status).toBe(404);
    expect((await call(app, acme.apiSecret, 'DELETE', `/v2.2/webhooks/${id}`)).status).toBe(404);
  });

  it("another account's subscription is 404 on every route, and its store's list is 404", async () => {
    const { body } = await createWebhook(app, acme, hook());
    const id = body.webhook.id;
    for (const [method, path, payload] of [
      ['GET', `/v2.2/webhooks/${id}`, undefined],
      ['PUT', `/v2.2/webhooks/${id}`, { webhook: { callback: { url: 'http://127.0.0.1:9/x', auth: null } } }],
      ['DELETE', `/v2.2/webhooks/${id}`, undefined],
      ['POST', `/v2.2/webhooks/${id}/replay`, { start: '2026-01-01T00:00:00Z' }],
      ['GET', `/v2.2/webhooks/${id}/deliveries`, undefined],
    ] as const) {
      const res = await call(app, other.apiSecret, method, path, payload);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.type).toBe('/problems/webhook-not-found');
    }
    expect((await call(app, other.apiSecret, 'GET', `/v2.2/stores/${acme.storeId}/webhooks`)).status).toBe(404);
    expect((await createWebhook(app, other, hook(), { storeId: acme.storeId })).status).toBe(404);
    // Still there for its owner.
    expect((await call(app, acme.apiSecret, 'GET', `/v2.2/webhooks/${id}`)).status).toBe(200);
  });

  it('needs webhooks_read / webhooks_write (403 before the body is read)', async () => {
    const { apiSecret: token } = await app.service.runtime.accounts.createSecret(acme.accountId, ['returns_read']);
    expect((await call(app, token, 'GET', `/v2.2/stores/${acme.storeId}/webhooks`)).status).toBe(403);
    const res = await app.request(`/v2.2/stores/${acme.storeId}/webhooks`, { method: 'POST', token, headers: { 'content-type': 'application/json' }, body: '{not json' });
    expect(res.status).toBe(403);
  });

  it('validates topic, callback, auth shape, externalId with pointers (400), changing nothing', async () => {
    const before = (await call(app, acme.apiSecret, 'GET', `/v2.2/stores/${acme.storeId}/webhooks?page-size=500`)).body.webhooks.length;
    const cases: Array<[Record<string, unknown>, string]> = [
      [hook({ topic: 'orders' }), '/webhook/topic'],
      [hook({ topic: undefined }), '/webhook/topic'],
      [hook({ callback: { url: 'http://127.0.0.1:9/x', auth: { basic: { user: 'a' } } } }), '/webhook/callback/auth/basic'],
      [hook({ callback: { url: 'http://127.0.0.1:9/x', auth: { bearer: { token: '' } } } }), '/webhook/callback/auth/bearer/token'],
      [hook({ callback: { auth: null } }), '/webhook/callback/url'],
      [hook({ externalId: '' }), '/webhook/externalId'],
      [hook({ externalId: 'x'.repeat(256) }), '/webhook/externalId'],
      [hook({ backfill: 'yes' }), '/webhook/backfill'],
      [hook({ extra: 1 }), '/webhook/extra'],
    ];
    for (const [body, pointer] of cases) {
      const res = await createWebhook(app, acme, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors.map((e: any) => e.pointer), JSON.stringify(body)).toContain(pointer);
    }
    expect((await call(app, acme.apiSecret, 'GET', `/v2.2/stores/${acme.storeId}/webhooks?page-size=500`)).body.webhooks.length).toBe(before);
  });

  it('refuses callback URLs the SSRF rules forbid (400 at /webhook/callback/url)', async () => {
    const urls = [
      'http://example.com/hook', // https only
      'https://localhost/hook', // a name resolving to loopback, not in the allow-list here
      'https://127.0.0.2/hook',
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://[::ffff:10.0.0.1]/hook',
      'https://10.0.0.1/hook',
      'https://172.20.1.1/hook',
      'https://192.168.0.10/hook',
      'https://169.254.169.254/latest',
      'https://[fe80::1]/hook',
      'https://0.0.0.0/hook',
      'https://224.0.0.251/hook',
      'ftp://93.184.215.14/hook',
      'not a url',
    ];
    for (const url of urls) {
      const res = await createWebhook(app, acme, hook({ callback: { url, auth: null } }));
      expect(res.status, url).toBe(400);
      expect(res.body.errors, url).toEqual([{ pointer: '/webhook/callback/url', detail: expect.any(String) }]);
    }
    // The same rules on PUT.
    const { body } = await createWebhook(app, acme, hook());
    const put = await call(app, acme.apiSecret, 'PUT', `/v2.2/webhooks/${body.webhook.id}`, { webhook: { callback: { url: 'https://10.1.1.1/x', auth: null } } });
    expect(put.status).toBe(400);
    expect((await call(app, acme.apiSecret, 'GET', `/v2.2/webhooks/${body.webhook.id}`)).body.webhook.callback.url).toBe('http://127.0.0.1:9/hook');
    // A public https address is fine.
    expect((await createWebhook(app, acme, hook({ callback: { url: 'https://93.184.215.14/hook', auth: null } }))).status).toBe(201);
  });

  it('replay takes {start} (202), and refuses a bad start with a pointer', async () => {
    const { body } = await createWebhook(app, acme, hook());
    const ok = await call(app, acme.apiSecret, 'POST', `/v2.2/webhooks/${body.webhook.id}/replay`, { start: '2026-01-01T00:00:00Z' });
    expect(ok.status).toBe(202);
    const bad = await call(app, acme.apiSecret, 'POST', `/v2.2/webhooks/${body.webhook.id}/replay`, { start: 'yesterday' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].pointer).toBe('/start');
  });

  it('a delete does not wait for a deliverer holding its lanes and referencing it: 204 at once, then 404; the sweep purges it later', async () => {
    const created = await createWebhook(app, acme, hook({ externalId: 'held' }));
    const id = created.body.webhook.id as string;
    const deliverer = new pg.Client({ connectionString: app.databaseUrl });
    await deliverer.connect();
    try {
      // A deliverer's order: its lanes first, then (recording an attempt) a reference to the subscription.
      await deliverer.query(`insert into webhooks.lane (subscription_id, lane) values ($1, 'sub_1')`, [id]);
      await deliverer.query('begin');
      await deliverer.query('select 1 from webhooks.lane where subscription_id = $1 for update', [id]);
      await deliverer.query('select 1 from webhooks.subscription where id = $1 for key share', [id]);
      // Answered while the deliverer's transaction is still open: the delete waits for nobody.
      expect((await call(app, acme.apiSecret, 'DELETE', `/v2.2/webhooks/${id}`)).status).toBe(204);
      expect((await call(app, acme.apiSecret, 'GET', `/v2.2/webhooks/${id}`)).status).toBe(404);
      expect((await call(app, acme.apiSecret, 'DELETE', `/v2.2/webhooks/${id}`)).status).toBe(404);
      const list = await call(app, acme.apiSecret, 'GET', `/v2.2/stores/${acme.storeId}/webhooks?page-size=100`);
      expect(list.body.webhooks.map((w: { id: string }) => w.id)).not.toContain(id);
      // Its externalId is free for a new subscription at once.
      expect((await createWebhook(app, acme, hook({ externalId: 'held' }))).status).toBe(201);
      await deliverer.query('commit');
    } finally {
      await deliverer.end();
    }
    await sweep(app.service.runtime.deps.webhooks!.orm);
    expect(await query(app.databaseUrl, 'select 1 from webhooks.subscription where id = $1', [id])).toEqual([]);
    expect(await query(app.databaseUrl, 'select 1 from webhooks.lane where subscription_id = $1', [id])).toEqual([]);
  });
});

describe('webhook subscriptions deleted and changed under delivery load', () => {
  // Error lines of the service: a deadlock aborts whichever side PostgreSQL picks, and a deliverer or the
  // fan-out that loses one logs it (its outcomes or its pass are lost and done again) without any answer showing it.
  const logs: Record<string, unknown>[] = [];
  const app = useTestApp({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1', EVENTS_RATE_LIMIT_PER_SECOND: '100000', LOG_LEVEL: 'error' }, { logs });
  const acme = useTestAccount(app, 'Acme');
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(() => receiver?.close());

  it('answers every DELETE and PUT with 204 (never 5xx, no deadlock on any side) while the fan-out and the deliverers hold the subscriptions\' lanes; after a DELETE, only the requests under way arrive', { timeout: 240_000 }, async () => {
    const random = seededRandom();
    const ROUNDS = 6;
    const SUBSCRIPTIONS = 6; // even ones changed (PUT), odd ones deleted
    const CUSTOMERS = 40; // lanes per subscription
    // Each subscription has a path of its own, so the receiver tells them apart: /hook/r<round>s<index>.
    const subscription = (path: string) => ({ callback: { url: `${receiver.url}/${path}`, auth: null }, topic: 'custom_event' });
    const changed = new Set<string>();
    // A slow receiver that sometimes fails (a retry), and sometimes says gone (410: disabled) to a subscription
    // before its PUT re-enables it: deliveries stay in flight and lanes stay held while the changes land.
    receiver.answer(async (req) => {
      await new Promise((r) => setTimeout(r, 20));
      const index = Number(/s(\d+)$/.exec(req.path)?.[1]);
      const draw = random();
      if (index % 2 === 0 && !changed.has(req.path) && draw < 0.05) return { status: 410 };
      return { status: draw > 0.85 ? 500 : 204 };
    });
    const post = (n: number) =>
      call(app, acme.apiSecret, 'POST', `/v2.2/stores/${acme.storeId}/events/bulk`, {
        events: Array.from({ length: 100 }, (_, i) => ({ eventName: 'Load', customer: { email: `load-${n}-${i % CUSTOMERS}@example.com` }, data: { n, i } })),
      });
    const customerOf = (body: string) => (JSON.parse(body) as { customer: { id: string } }).customer.id;
    const statuses: string[] = [];
    const deletedOnes: { path: string; answeredAt: number; leasesEndedAt: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const paths = Array.from({ length: SUBSCRIPTIONS }, (_, i) => `/hook/r${round}s${i}`);
      const ids: string[] = [];
      for (const path of paths) ids.push((await createWebhook(app, acme, subscription(path.slice('/hook/'.length)))).body.webhook.id as string);
      // Events flowing to every subscription (the fan-out inserting messages, the deliverers holding lanes) ...
      const flowing = Promise.all(Array.from({ length: 4 }, (_, n) => post(round * 10 + n)));
      await eventually(async () => paths.every((path) => receiver.received.some((r) => r.path === path)) || undefined, 'deliveries to every subscription of the round');
      // ... while half of them are changed and half deleted, all at once.
      const changes = await Promise.all(
        ids.map(async (id, i) => {
          const res =
            i % 2 === 0
              ? await call(app, acme.apiSecret, 'PUT', `/v2.2/webhooks/${id}`, { webhook: { callback: subscription(paths[i]!.slice('/hook/'.length)).callback } })
              : await call(app, acme.apiSecret, 'DELETE', `/v2.2/webhooks/${id}`);
          if (i % 2 === 0) changed.add(paths[i]!);
          return { i, status: res.status, answeredAt: Date.now() };
        }),
      );
      statuses.push(...changes.map((c) => `${c.i % 2 === 0 ? 'PUT' : 'DELETE'} ${c.status}`));
      // The sweep purges the deleted ones while their last requests may still be out (it gives way when they hold a lane).
      const purging = sweep(app.service.runtime.deps.webhooks!.orm);
      expect((await flowing).map((r) => r.status)).toEqual([202, 202, 202, 202]);
      await purging;
      const deleted = ids.filter((_, i) => i % 2 === 1);
      // Once no lane of the deleted subscriptions is leased, no request to them is under way.
      await eventually(async () => (await query(app.databaseUrl, 'select 1 from webhooks.lane where subscription_id = any($1) and lease_until > now()', [deleted])).length === 0, 'leases on the deleted subscriptions to end');
      const leasesEndedAt = Date.now();
      for (const c of changes.filter((c) => c.i % 2 === 1)) deletedOnes.push({ path: paths[c.i]!, answeredAt: c.answeredAt, leasesEndedAt });
    }
    expect(statuses.filter((s) => !s.endsWith(' 204')), `statuses: ${statuses.join(', ')}`).toEqual([]);
    // Every deleted subscription is purged in the end.
    await eventually(async () => {
      await sweep(app.service.runtime.deps.webhooks!.orm);
      return (await query(app.databaseUrl, 'select 1 from webhooks.subscription where deleted_at is not null')).length === 0 || undefined;
    }, 'the deleted subscriptions to be purged');
    expect(logs.map((l) => `${String(l.msg)}: ${String((l.err as { message?: string } | undefined)?.message ?? '')}`)).toEqual([]);
    for (const { path, answeredAt, leasesEndedAt } of deletedOnes) {
      // After its 204, a deleted subscription gets at most the request each lane had under way; nothing starts after it.
      const late = receiver.received.filter((r) => r.path === path && r.at > answeredAt);
      const perLane = new Map<string, number>();
      for (const r of late) perLane.set(customerOf(r.body), (perLane.get(customerOf(r.body)) ?? 0) + 1);
      expect([...perLane].filter(([, n]) => n > 1), `${path}: lanes with more than one request after the DELETE answered`).toEqual([]);
      // Nothing at all once its leases ended (the later rounds' deliveries are the marker that time went on).
      expect(receiver.received.filter((r) => r.path === path && r.at > leasesEndedAt)).toEqual([]);
    }
  });
});
