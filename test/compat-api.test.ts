import { describe, expect, it } from 'vitest';
import { startTestApp, useTestAccount, useTestApp } from './support/app.js';
import { STATES } from './support/clients.js';
import { compat, seedReturn, setReturnState } from './support/compat.js';
import { query } from './support/database.js';
import { startAnotherProcess } from './support/events.js';

/** The compatibility surface: keys, the per-key limit across processes, envelopes, routes, details and its formats. */
const LIMIT = 5;
const app = useTestApp();
const account = useTestAccount(app, 'Warehouse');

const UNAUTHORIZED = { error: { code: '401', http_code: 'GEN-UNAUTHORIZED', message: 'Unauthorized.' } };

describe('keys', () => {
  it('answers a missing, unknown, revoked key or an API secret with 401 and the exact body', async () => {
    const revoked = await app.createAccount('Revoked');
    await query(app.databaseUrl, "update platform.compat_key set revoked_at = now() where store_id = $1; select pg_notify('platform_credentials', '')", [revoked.storeId]).catch(async () => {
      await query(app.databaseUrl, 'update platform.compat_key set revoked_at = now() where store_id = $1', [revoked.storeId]);
      await query(app.databaseUrl, "select pg_notify('platform_credentials', '')");
    });
    const attempts: [string | undefined, Record<string, string>][] = [
      [undefined, {}],
      ['', {}],
      ['ck_unknown', {}],
      [revoked.compatKey, {}],
      [`Bearer ${account.compatKey}`, {}],
      [undefined, { authorization: `Bearer ${account.apiSecret}` }],
      [account.apiSecret, {}],
    ];
    for (const [key, headers] of attempts) {
      const res = await compat(app, key, 'GET', '/api/v1/warehouse/return/list', undefined, headers);
      expect(res.status).toBe(401);
      expect(res.text).toBe(JSON.stringify(UNAUTHORIZED));
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    }
    // Authentication comes before the route's own checks.
    expect((await compat(app, undefined, 'POST', '/api/v1/warehouse/return/1/note', {})).status).toBe(401);
  });

  it("acts only for the key's own store", async () => {
    const mine = await seedReturn(app, account);
    const other = await app.createAccount('Other');
    const res = await compat(app, other.compatKey, 'GET', `/api/v1/warehouse/return/details?return_id=${mine.numericId}`);
    expect(res.body).toEqual({ error: { message: 'No return found with this ID.' } });
  });
});

describe('rate limit', () => {
  it('admits 300 a minute per key (here 5), counted across two processes, then 429 {"message":"Too Many Requests"}', async () => {
    const limited = await startTestApp({ COMPAT_RATE_LIMIT_PER_MINUTE: String(LIMIT) });
    const second = await startAnotherProcess(limited, { COMPAT_RATE_LIMIT_PER_MINUTE: String(LIMIT) });
    try {
      const acct = await limited.createAccount('Limited');
      const other = await limited.createAccount('Other key');
      const bases = [limited.baseUrl, second.baseUrl];
      const responses = await Promise.all(
        Array.from({ length: 24 }, (_, i) => fetch(`${bases[i % 2]}/api/v1/warehouse/return/list`, { headers: { 'x-authorization': acct.compatKey } })),
      );
      const ok = responses.filter((r) => r.status === 200);
      const tooMany = responses.filter((r) => r.status === 429);
      expect(ok.length + tooMany.length).toBe(24);
      const [windows] = await query<{ n: number; total: number }>(limited.databaseUrl, `select count(*)::int as n, sum(count)::int as total from platform.rate_window where key like 'compat:%'`);
      // Whatever minute boundaries the burst crossed, no window admitted more than the limit.
      expect(ok.length).toBeLessThanOrEqual(LIMIT * windows!.n);
      expect(ok.length).toBeGreaterThanOrEqual(1);
      expect(windows!.total).toBe(24);
      expect(tooMany.length).toBeGreaterThan(0);
      expect(await tooMany[0]!.text()).toBe('{"message":"Too Many Requests"}');
      expect(Number(tooMany[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(tooMany[0]!.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
      expect(tooMany[0]!.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(ok[0]!.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
      // Another key has its own budget.
      expect((await fetch(`${second.baseUrl}/api/v1/warehouse/return/list`, { headers: { 'x-authorization': other.compatKey } })).status).toBe(200);
    } finally {
      await second.stop();
      await limited.stop();
    }
  });
});

describe('routes', () => {
  it('serves the same routes under /api/v1 and the dated alias /api/2026-07', async () => {
    const ret = await seedReturn(app, account);
    for (const prefix of ['/api/v1', '/api/2026-07']) {
      const res = await compat(app, account.compatKey, 'GET', `${prefix}/warehouse/return/details?return_id=${ret.numericId}`);
      expect(res.status).toBe(200);
      expect(res.body.service_id).toBe(ret.id);
    }
  });

  it('authenticates before it routes, as Loop does: a path it does not serve is 401 without a key, 403 with one (decisions 17)', async () => {
    const FORBIDDEN = { error: { code: '403', http_code: 'GEN-FORBIDDEN', message: 'Forbidden.' } };
    // Loop's webhook API is served now (decisions 20): without a key it is still 401 first.
    expect((await compat(app, undefined, 'POST', '/api/v1/webhooks')).status).toBe(401);
    for (const [method, path] of [['GET', '/api/v1/destinations'], ['POST', '/api/v1/webhooks/12/logs'], ['GET', '/api/2026-07/warehouse'], ['GET', '/api/v1/warehouse/return/nope'], ['GET', '/api/v1']] as const) {
      const unsigned = await compat(app, undefined, method, path);
      expect(unsigned.status, path).toBe(401);
      expect(unsigned.text, path).toBe(JSON.stringify(UNAUTHORIZED));
      expect((await compat(app, 'ck_unknown', method, path)).status, path).toBe(401);
      const signed = await compat(app, account.compatKey, method, path);
      expect(signed.status, path).toBe(403);
      expect(signed.text, path).toBe(JSON.stringify(FORBIDDEN));
    }
    // A served path with another method: 401 first, then Laravel's 405.
    expect((await compat(app, undefined, 'GET', '/api/v1/warehouse/return/12/process')).status).toBe(401);
  });

  it("answers wrong methods as Laravel does: 405 {message}, with Allow", async () => {
    const cases: [string, string, number, unknown][] = [
      ['GET', '/api/v1/warehouse/return/12/process', 405, { message: 'The GET method is not supported for route api/v1/warehouse/return/12/process. Supported methods: POST.' }],
      ['DELETE', '/api/v1/warehouse/return/list', 405, { message: 'The DELETE method is not supported for route api/v1/warehouse/return/list. Supported methods: GET, HEAD.' }],
    ];
    for (const [method, path, status, body] of cases) {
      const res = await compat(app, account.compatKey, method, path);
      expect(res.status, path).toBe(status);
      expect(res.body, path).toEqual(body);
    }
    const wrong = await compat(app, account.compatKey, 'PUT', '/api/v1/warehouse/return/12/flag');
    expect(wrong.headers.get('allow')).toContain('POST');
    // Outside the compatibility prefixes the service's own problem details still answer.
    const other = await fetch(`${app.baseUrl}/api/v3/warehouse/return/list`);
    expect(other.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('ignores query parameters it does not know, as Loop does', async () => {
    const ret = await seedReturn(app, account);
    const res = await compat(app, account.compatKey, 'GET', `/api/v1/warehouse/return/details?return_id=${ret.numericId}&currency_type=shop&utm=1`);
    expect(res.status).toBe(200);
  });

  it('answers a malformed body or a server fault in {message} form, without internals', async () => {
    const ret = await seedReturn(app, account);
    const res = await compat(app, account.compatKey, 'POST', `/api/v1/warehouse/return/${ret.numericId}/note`, '{"content": ');
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(['message']);
  });
});

describe('details', () => {
  it('finds a return by return_id, order_id, order_name or service_return_id', async () => {
    const ret = await seedReturn(app, account);
    for (const params of [`return_id=${ret.numericId}`, `order_id=${ret.orderNumericId}`, `order_name=${encodeURIComponent(ret.orderName)}`, `service_return_id=${ret.id}`]) {
      const res = await compat(app, account.compatKey, 'GET', `/api/v1/warehouse/return/details?${params}`);
      expect(res.status, params).toBe(200);
      expect(res.body.id, params).toBe(ret.numericId);
    }
  });

  it("by order finds the order's newest return", async () => {
    const first = await seedReturn(app, account, { items: [{ lineItemId: 'li-1', quantity: 1, reason: 'a' }] });
    const [order] = await query<{ external_id: string }>(app.databaseUrl, 'select o.external_id from returns.return r join returns."order" o on o.id = r.order_id where r.id = $1', [first.id]);
    const second = await app.request(`/v2.2/stores/${account.storeId}/returns`, {
      method: 'POST',
      token: account.apiSecret,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ data: { provider: 'custom', externalOrderId: order!.external_id, items: [{ lineItemId: 'li-2', quantity: 1, reason: 'b' }] } }),
    });
    const newest = ((await second.json()) as { return: { id: string } }).return.id;
    const res = await compat(app, account.compatKey, 'GET', `/api/v1/warehouse/return/details?order_id=${first.orderNumericId}`);
    expect(res.body.service_id).toBe(newest);
  });

  it('answers an unknown return with 200 {"error":{...}} and a request naming none with 422', async () => {
    for (const params of ['return_id=999999', 'return_id=abc', 'order_id=999999', 'order_name=%23none', 'service_return_id=ret_nope']) {
      const res = await compat(app, account.compatKey, 'GET', `/api/v1/warehouse/return/details?${params}`);
      expect(res.status, params).toBe(200);
      expect(res.body, params).toEqual({ error: { message: 'No return found with this ID.' } });
    }
    const none = await compat(app, account.compatKey, 'GET', '/api/v1/warehouse/return/details');
    expect(none.status).toBe(422);
    expect(Object.keys(none.body.errors)).toEqual(['return_id']);
  });

  it("shows Loop's return object: numbers, decimal strings, YYYY-MM-DD HH:MM:SS timestamps, mapped state and labels", async () => {
    const ret = await seedReturn(app, account, {
      lines: [
        { id: 'li-1', productId: 'p1', variantId: 'v1', sku: 'SKU-1', title: 'Shirt', quantity: 3, price: '21.10', tax: '6.33', discount: '3.00' },
        { id: 'li-2', sku: 'SKU-2', title: 'Hat', quantity: 1, price: '10.00' },
      ],
      items: [
        { lineItemId: 'li-1', quantity: 2, reason: 'Too small', notes: 'tight' },
        { lineItemId: 'li-2', quantity: 1, reason: 'Damaged', compensation: 'store_credit' },
      ],
    });
    await query(app.databaseUrl, `update returns.return set shipment = '{"carrier":"UPS","tracker":"1Z999","status":"label_created"}', shipment_recorded = true where id = $1`, [ret.id]);
    const res = await compat(app, account.compatKey, 'GET', `/api/v1/warehouse/return/details?return_id=${ret.numericId}`);
    const [row] = await query<{ created: string }>(app.databaseUrl, `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS') as created from returns.return where id = $1`, [ret.id]);
    expect(res.body).toEqual({
      id: ret.numericId,
      service_id: ret.id,
      state: 'open',
      created_at: row!.created,
      updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
      order_id: ret.orderNumericId,
      order_name: ret.orderName,
      provider_order_id: ret.externalOrderId,
      customer: 'ada@example.com',
      currency: 'USD',
      // Shirt: 2 of 3 units at 21.10, 2/3 of the line's 6.33 tax and 3.00 discount; hat: 10.00.
      total: '54.42',
      return_product_total: '52.20',
      return_discount_total: '2.00',
      return_tax_total: '4.22',
      return_total: '54.42',
      return_credit_total: '54.42',
      exchange_total: '0.00',
      refund: '44.42',
      gift_card: '10.00',
      outcome: 'mixed',
      carrier: 'UPS',
      tracking_number: '1Z999',
      label_status: 'new',
      line_items: [
        {
          line_item_id: ret.lines['li-1'],
          provider_line_item_id: 'li-1',
          product_id: 'p1',
          variant_id: 'v1',
          sku: 'SKU-1',
          title: 'Shirt',
          quantity: 2,
          price: '42.20',
          discount: '2.00',
          tax: '4.22',
          refund: '44.42',
          outcome: 'refund',
          return_reason: 'Too small',
          return_comment: 'tight',
          returned_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        },
        {
          line_item_id: ret.lines['li-2'],
          provider_line_item_id: 'li-2',
          product_id: null,
          variant_id: null,
          sku: 'SKU-2',
          title: 'Hat',
          quantity: 1,
          price: '10.00',
          discount: '0.00',
          tax: '0.00',
          refund: '10.00',
          outcome: 'gift',
          return_reason: 'Damaged',
          return_comment: null,
          returned_at: expect.stringMatching(/Z$/),
        },
      ],
      exchanges: [],
    });
  });

  it('keeps numeric ids once allocated: an order update keeps its lines\' numbers, new ones get new numbers', async () => {
    const ret = await seedReturn(app, account);
    const [order] = await query<{ external_id: string; name: string }>(app.databaseUrl, 'select o.external_id, o.name from returns.return r join returns."order" o on o.id = r.order_id where r.id = $1', [ret.id]);
    const update = await app.request(`/v2.2/stores/${account.storeId}/custom/orders`, {
      method: 'POST',
      token: account.apiSecret,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: order!.external_id,
        name: order!.name,
        currency: 'USD',
        customer: { email: 'ada@example.com' },
        lineItems: [
          { id: 'li-1', quantity: 2, price: '25.00' },
          { id: 'li-2', quantity: 1, price: '10.00' },
          { id: 'li-3', quantity: 1, price: '5.00' },
        ],
      }),
    });
    expect(update.status).toBe(200);
    const lines = await query<{ external_id: string; numeric: string }>(app.databaseUrl, 'select external_id, compat_id::text as numeric from returns.order_line_item where order_id = (select order_id from returns.return where id = $1) order by external_id', [ret.id]);
    expect(Number(lines[0]!.numeric)).toBe(ret.lines['li-1']);
    expect(Number(lines[1]!.numeric)).toBe(ret.lines['li-2']);
    expect(Number(lines[2]!.numeric)).toBeGreaterThan(Math.max(...Object.values(ret.lines)));
  });

  it('shows the state of a return mapped from every service status', async () => {
    for (const [status, state] of Object.entries(STATES)) {
      const ret = await seedReturn(app, account);
      await setReturnState(app, ret.id, { status, createdDaysAgo: 40 });
      const res = await compat(app, account.compatKey, 'GET', `/api/v1/warehouse/return/details?return_id=${ret.numericId}`);
      // Forty days old and never shipped: only `open` itself reads expired.
      expect(res.body.state, status).toBe(status === 'open' ? 'expired' : state);
    }
  });
});
