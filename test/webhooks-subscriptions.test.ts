import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { useTestAccount, useTestApp } from './support/app.js';
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
      kind: 'redo',
      externalId: null,
      disabled: false,
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

  it('a delete that deadlocks with a deliverer (lanes locked, then the subscription referenced) is run again: 204, not 500', async () => {
    const created = await createWebhook(app, acme, hook());
    const id = created.body.webhook.id as string;
    const deliverer = new pg.Client({ connectionString: app.databaseUrl });
    await deliverer.connect();
    try {
      // A claim's order: its lanes first, then (recording an attempt) a reference to the subscription.
      await deliverer.query(`insert into webhooks.lane (subscription_id, lane) values ($1, 'sub_1')`, [id]);
      await deliverer.query('begin');
      await deliverer.query('select 1 from webhooks.lane where subscription_id = $1 for update', [id]);
      const [{ pid }] = (await deliverer.query<{ pid: number }>('select pg_backend_pid() as pid')).rows as [{ pid: number }];
      const deleting = call(app, acme.apiSecret, 'DELETE', `/v2.2/webhooks/${id}`);
      // The delete holds the subscription and waits for the lane. (Found by who blocks it: under load
      // pg_stat_activity can show a waiting backend's previous statement as its query.)
      await eventually(async () => {
        const { rows } = await deliverer.query('select 1 from pg_stat_activity where $1 = any(pg_blocking_pids(pid))', [pid]);
        return rows.length ? true : undefined;
      }, 'the delete to wait on the lane');
      // The attempt's foreign key check: waits for the delete, which waits for this transaction.
      await deliverer.query('select 1 from webhooks.subscription where id = $1 for key share', [id]);
      await deliverer.query('commit');
      expect((await deleting).status).toBe(204);
      expect((await call(app, acme.apiSecret, 'GET', `/v2.2/webhooks/${id}`)).status).toBe(404);
    } finally {
      await deliverer.end();
    }
  });
});

describe('webhook subscriptions (GraphQL, dashboards)', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Acme');
  const other = useTestAccount(app, 'Other');

  const LIST = `query($s: ID!, $first: Int) { webhooks(storeId: $s, first: $first) {
    edges { node { id topic url maskedToken kind externalId disabled createdAt
      deliveries(first: 5) { edges { node { id webhookId type attempt status responseStatus } } } } }
    pageInfo { hasNextPage endCursor } } }`;

  it("lists a store's subscriptions with their deliveries, scoped to the caller", async () => {
    const created = await createWebhook(app, acme, { callback: { url: 'http://127.0.0.1:9/hook', auth: { bearer: { token: 'dash-token-7777' } } }, topic: 'custom_event', externalId: 'dash' });
    expect(created.status).toBe(201);
    const mine = await app.graphql<any>(LIST, { s: acme.storeId, first: 10 }, acme.apiSecret);
    expect(mine.errors).toBeUndefined();
    expect(mine.data.webhooks.edges.map((e: any) => e.node)).toEqual([
      {
        id: created.body.webhook.id,
        topic: 'custom_event',
        url: 'http://127.0.0.1:9/hook',
        maskedToken: '****7777',
        kind: 'redo',
        externalId: 'dash',
        disabled: false,
        createdAt: expect.any(String),
        deliveries: { edges: [] },
      },
    ]);
    // Another account: its store is not found, its subscription is null.
    const foreign = await app.graphql<any>(LIST, { s: acme.storeId }, other.apiSecret);
    expect(foreign.data).toBeNull();
    expect(foreign.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const one = await app.graphql<any>('query($id: ID!) { webhook(id: $id) { id } }', { id: created.body.webhook.id }, other.apiSecret);
    expect(one.data.webhook).toBeNull();
    const own = await app.graphql<any>('query($id: ID!) { webhook(id: $id) { id url } }', { id: created.body.webhook.id }, acme.apiSecret);
    expect(own.data.webhook).toEqual({ id: created.body.webhook.id, url: 'http://127.0.0.1:9/hook' });
  });
});
