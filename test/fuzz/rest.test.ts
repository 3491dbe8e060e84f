import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../platform/api/rate-limit.js';
import { compatRoutes } from '../../rest-facade/compat/index.js';
import type { RouteTable, TableEntry } from '../../rest-facade/pipeline/routing.js';
import { v2Routes } from '../../rest-facade/v2/index.js';
import { useTestAccount, useTestApp } from '../support/app.js';
import { seedReturn, type SeededReturn } from '../support/compat.js';
import { accept, drained } from '../support/events.js';
import { orderBody, postReturn, pushOrder, returnBody } from '../support/returns.js';
import { eventually } from '../support/eventually.js';
import { compat as compatCall } from '../support/compat.js';
import { call, createWebhook } from '../support/webhooks.js';
import { v22 } from '../support/orders.js';
import { requestErasure } from '../support/privacy.js';
import { adjust, createLocation, createShipment, upsertProduct } from '../inventory-fixtures.js';
import { conforming, contentEncoding, contentType, hostileValue, mutated, PROTOTYPE_KEYS, RawJson, sometimes, toJsonText, type JsonSchema } from './arbitraries.js';
import { FUZZ_RUNS, FUZZ_SEED, fuzzTimeout, StateProbe, StatusCounts } from './harness.js';

/**
 * Every route of both REST surfaces (`/v2.2` and the Loop-compatible
 * `/api/v1`), fed requests generated from its own schemas and mutated with
 * the hostile classes of input: wrong types, strings PostgreSQL cannot
 * store, impossible dates, numbers beyond the columns, deep structures,
 * keys and values named after Object.prototype members, malformed URLs,
 * duplicate and unknown query parameters, content types with parameters and
 * charsets, content encodings, bodies that are not JSON objects, bad
 * credentials. Whatever comes in: never a 5xx, each surface's error format
 * (a pointer on every /v2.2 validation problem), and nothing changed by a
 * refusal.
 */

interface Generated {
  path: string;
  query: [string, string][];
  body?: string;
  contentType: string;
  contentEncoding?: string;
  headers: Record<string, string>;
}

/** What differs between the two surfaces: where they are mounted, credentials, ids, and what a refusal looks like. */
interface Surface {
  name: string;
  table: RouteTable;
  prefixes: readonly string[];
  credentials(): fc.Arbitrary<Record<string, string>>;
  idFor(name: string, path: string): fc.Arbitrary<string> | undefined;
  /** Checks an answer's body; true when it refused the request (so nothing may have changed). */
  refused(status: number, text: string, method: string): boolean;
}

/** Query values already percent-encoded, hostile ones included (what encodeURIComponent would refuse to produce). */
const HOSTILE_QUERY = ['%00', 'a%00b', '%ED%A0%80', '%FF', '%E0%A4%A', '%', '2026-02-30', '0000-01-01T00:00:00Z', 'x'.repeat(3000), '', '%20', 'PENDING%00', ...PROTOTYPE_KEYS];
const HOSTILE_SEGMENTS = ['%00', '%FF', '%E0%A4%A', '%', 'x'.repeat(400), 'ret_unknown', '%2F..%2F', '%ED%A0%80', '..', '0', '-1', '99999999999999999999', ...PROTOTYPE_KEYS];

describe('fuzz: every REST route of /v2.2 and /api/v1', () => {
  const app = useTestApp({ API_RATE_LIMIT_PER_MINUTE: '1000000', COMPAT_RATE_LIMIT_PER_MINUTE: '1000000' });
  const acme = useTestAccount(app, 'Fuzz');
  const other = useTestAccount(app, 'Other');
  let probe: StateProbe;
  const counts = new StatusCounts();
  const ids: Record<string, string> = {};
  const webhookIds: string[] = [];
  const messageIds: string[] = [];
  const loopWebhookIds: number[] = [];
  const seeded: SeededReturn[] = [];
  const orderRefs: string[] = [];

  beforeAll(async () => {
    const order = orderBody({ id: 'FUZZ-1' }, [
      { id: 'l1', quantity: 1000, price: '10.00', sku: 'CAP' },
      { id: 'l2', quantity: 1000, price: '5.00' },
    ]);
    expect((await pushOrder(app, acme, order)).status).toBe(200);
    const created = await postReturn(app, acme, returnBody('FUZZ-1', [{ lineItemId: 'l1', quantity: 1, reason: 'r' }]));
    ids.returnId = created.body.return.id;
    const location = await createLocation(app, acme.storeId, 'Main');
    const product = await upsertProduct(app, acme.storeId, { sku: 'CAP', title: 'Cap' });
    ids.itemId = (await adjust(app, acme.storeId, { sku: 'CAP', locationId: location, delta: 5 })).id;
    ids.shipmentId = (await createShipment(app, acme.storeId, { locationId: location, items: [{ productId: product, quantity: 3 }] })).id;
    ids.location = location;
    // Several subscriptions and returns: valid deletes and actions use some up, the other routes keep finding one.
    for (let i = 0; i < 8; i++) {
      const hook = await createWebhook(app, acme, { callback: { url: 'http://127.0.0.1:9/fuzz', auth: null }, topic: 'return' });
      expect(hook.status).toBe(201);
      webhookIds.push(hook.body.webhook.id);
    }
    for (let i = 0; i < 4; i++) {
      const hook = await compatCall(app, acme.compatKey, 'POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/loop', topic: 'return', trigger: 'return.updated' });
      expect(hook.status).toBe(201);
      loopWebhookIds.push((hook.body as { id: number }).id);
    }
    for (let i = 0; i < 6; i++) seeded.push(await seedReturn(app, acme));
    // A message of a subscription (its deliveries fail: nothing listens there), for the resend route.
    messageIds.push(
      await eventually(async () => ((await call(app, acme.apiSecret, 'GET', `/v2.2/webhooks/${webhookIds[0]}/deliveries`)).body.deliveries as { messageId: string }[])[0]?.messageId, 'a delivery attempt'),
    );
    await accept(app, acme, { eventName: 'Seen', customer: { email: 'fuzz@example.com' } });
    await drained(app.databaseUrl);
    ids.erasureId = await requestErasure(app, acme, { email: 'gone@example.com' });
    // Orders of the orders API (deletes use some up), a fulfillment of each, and return tags.
    for (let i = 1; i <= 4; i++) {
      const order = await v22(app, acme, 'POST', `/stores/${acme.storeId}/orders`, {
        orderId: `FUZZ-API-${i}`,
        createdAt: '2026-11-01T00:00:00Z',
        lineItems: [{ id: 'a1', productId: 'p1', title: 'Cap', quantity: 1000, price: 10 }, { id: 'a2', productId: 'p2', title: 'Tee', quantity: 1000 }],
      });
      expect(order.status).toBe(200);
      orderRefs.push(`FUZZ-API-${i}`, order.body.orderId);
      const fulfillment = await v22(app, acme, 'POST', `/stores/${acme.storeId}/orders/FUZZ-API-${i}/fulfillments`, { fulfillmentId: 'FUZZ-FUL-1', lineItems: [{ id: 'a1', quantity: 1 }] });
      expect(fulfillment.status).toBe(200);
    }
    for (const name of ['Damaged', 'VIP', 'Fraud review']) {
      expect((await v22(app, acme, 'PUT', `/stores/${acme.storeId}/return-tags/${encodeURIComponent(name)}`, { pillTheme: 'NORMAL' })).status).toBe(200);
    }
    ids.productId = product;
    probe = new StateProbe(app.databaseUrl);
    probe.changed();
  });
  afterAll(async () => {
    // The service is still ready after everything it was fed.
    if (probe) expect((await fetch(`${app.baseUrl}/readyz`)).status).toBe(200);
    console.log(counts.report('REST fuzz: responses by route and status'));
    await probe?.close();
  });

  // The route tables are read for their specs only; no handler of these instances runs.
  const v2: Surface = {
    name: '/v2.2',
    table: v2Routes({} as never, { accounts: {} as never, adminToken: '', secretLimiter: new MemoryRateLimiter(1, 1), events: {} as never, webhooks: {} as never }),
    prefixes: ['/v2.2'],
    credentials: () =>
      fc
        .oneof(
          { weight: 12, arbitrary: fc.constant(`Bearer ${acme.apiSecret}`) },
          { weight: 1, arbitrary: fc.constantFrom('', 'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', `Bearer ${acme.apiSecret}x`, 'Bearer \u00e9', `bearer ${other.apiSecret}`, `Bearer ${'a'.repeat(5000)}`) },
        )
        .map((auth): Record<string, string> => (auth ? { authorization: auth } : {})),
    idFor(name, path) {
      if (name === 'storeId') return fc.constant(acme.storeId);
      if (name === 'returnId') return fc.constant(ids.returnId!);
      if (name === 'webhookId') return fc.constantFrom(...webhookIds);
      if (name === 'messageId') return fc.constantFrom(...messageIds, 'msg_unknown');
      if (name === 'erasureId') return fc.constant(ids.erasureId!);
      if (name === 'url') return fc.constantFrom('http://127.0.0.1:9/fuzz', 'https://93.184.215.14/hook');
      if (name === 'orderId') return path.includes('/orders/') ? fc.constantFrom(...orderRefs) : fc.constantFrom('FUZZ-NEW-1', 'FUZZ-NEW-2', 'FUZZ-API-1');
      if (name === 'fulfillmentId') return fc.constantFrom('FUZZ-FUL-1', 'FUZZ-FUL-2');
      if (name === 'name' || name === 'newName') return fc.constantFrom('Damaged', 'VIP', 'Fraud review', 'New tag');
      if (name === 'productId') return fc.constantFrom(ids.productId!, 'prd_unknown');
      if (name === 'id') return fc.constant(path.includes('inbound-shipments') ? ids.shipmentId! : path.includes('/orders') ? 'a1' : ids.itemId!);
      if (name === 'location_id') return fc.constant(ids.location!);
      if (name === 'externalOrderId') return fc.constant('FUZZ-1');
      if (name === 'lineItemId') return fc.constantFrom('l1', 'l2');
      if (name === 'provider') return fc.constant('custom');
      return undefined;
    },
    refused(status, text) {
      if (status < 400) return false;
      const problem = JSON.parse(text) as { type?: string; errors?: { pointer?: unknown }[] };
      expect(problem.type, text).toMatch(/^\/problems\//);
      if (problem.type === '/problems/validation-failed') {
        expect(problem.errors?.length, text).toBeGreaterThan(0);
        for (const e of problem.errors!) expect(typeof e.pointer, text).toBe('string');
      }
      return true;
    },
  };

  const compat: Surface = {
    name: '/api/v1',
    table: compatRoutes({} as never, { accounts: {} as never, adminToken: '', limiter: {} as never, webhooks: {} as never }),
    prefixes: ['/api/v1', '/api/2026-07'],
    credentials: () =>
      fc
        .oneof(
          { weight: 12, arbitrary: fc.constant(acme.compatKey) },
          { weight: 1, arbitrary: fc.constantFrom('', ' ', `${acme.compatKey}x`, other.compatKey, acme.apiSecret, `Bearer ${acme.compatKey}`, '\u00e9', 'a'.repeat(5000)) },
        )
        .map((key): Record<string, string> => (key ? { 'x-authorization': key } : {})),
    idFor(name) {
      const numeric = (values: number[]) => fc.constantFrom(...values.map(String));
      if (name === 'return_id') return numeric(seeded.map((r) => r.numericId));
      if (name === 'order_id') return numeric(seeded.map((r) => r.orderNumericId));
      if (name === 'order_name') return fc.constantFrom(...seeded.map((r) => r.orderName));
      if (name === 'service_return_id') return fc.constantFrom(...seeded.map((r) => r.id));
      if (name === 'line_item_id') return fc.constantFrom(...seeded.flatMap((r) => Object.values(r.lines).map(String)), Object.values(seeded[0]!.lines).join(','));
      if (name === 'from' || name === 'to') return fc.constantFrom('2026-11-01', '2026-11-01 00:00:00', '2026-11-01T00:00:00Z', new Date().toISOString());
      if (name === 'filter') return fc.constantFrom('created_at', 'updated_at');
      if (name === 'state') return fc.constantFrom('open', 'review', 'closed', 'cancelled', 'expired');
      if (name === 'currency_type') return fc.constantFrom('presentment', 'shop');
      if (name === 'id') return numeric(loopWebhookIds);
      if (name === 'url') return fc.constantFrom('http://127.0.0.1:9/loop', 'https://93.184.215.14/hook', 'https://10.0.0.1/hook');
      if (name === 'topic') return fc.constantFrom('return', 'label', 'restock');
      if (name === 'trigger') return fc.constantFrom('return.created', 'return.updated', 'return.closed', 'label.created', 'label.updated', 'restock.requested');
      if (name === 'status') return fc.constantFrom('active', 'inactive');
      return undefined;
    },
    refused(status, text, method) {
      // Loop's shapes: 401 {"error"}, 422 {"message","errors":{field:[...]}}, 404/405/415/429 {"message"}; refusals of an action are 200 bodies.
      if (status === 204) return false;
      const body = JSON.parse(text) as unknown;
      const laravel = body as { message?: unknown; errors?: unknown };
      if (status === 422 && typeof laravel?.message === 'string' && laravel.errors && typeof laravel.errors === 'object') {
        for (const messages of Object.values(laravel.errors)) expect(Array.isArray(messages), text).toBe(true);
      }
      return status >= 400 || (method === 'POST' && status === 200 && body !== true);
    },
  };

  function requests(surface: Surface, entry: TableEntry): fc.Arbitrary<Generated> {
    const { spec } = entry.route;
    const names = [...entry.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
    const segment = (name: string) =>
      fc.oneof({ weight: 6, arbitrary: surface.idFor(name, entry.path)!.map(encodeURIComponent) }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS, other.storeId) });
    const path = fc
      .tuple(fc.constantFrom(...surface.prefixes), ...names.map(segment))
      .map(([prefix, ...values]) => names.reduce((p, name, i) => p.replace(`:${name}`, values[i]!), `${prefix}${entry.path}`));

    const querySchema = spec.query as JsonSchema | undefined;
    const validQuery = querySchema ? (conforming(querySchema, (n) => surface.idFor(n, entry.path)) as fc.Arbitrary<Record<string, string>>) : fc.constant({});
    const queryPairs = validQuery.map((q) => Object.entries(q).map(([k, v]) => [k, encodeURIComponent(String(v))] as [string, string]));
    const extras = fc.array(
      fc.oneof(
        fc.tuple(fc.constantFrom(...Object.keys(querySchema?.properties ?? { status: {} })), fc.constantFrom(...HOSTILE_QUERY)),
        fc.tuple(fc.constantFrom(...PROTOTYPE_KEYS, 'unknown', 'page-size', 'page-continue', 'status[]', 'a%00'), fc.constantFrom('1', 'x', ...HOSTILE_QUERY)),
        fc.tuple(fc.constantFrom('page-size', 'pageSize'), fc.constantFrom('1', '20', '500', '0', '501', '751', '-1', '1e2', 'abc', '99999999999999999999')),
        fc.tuple(fc.constantFrom('page-continue', 'cursor'), fc.constantFrom('garbage', 'a.b', 'eyJrIjpbXX0.xxxx', '%00')),
        fc.tuple(fc.constant('paginate'), fc.constantFrom('true', 'TRUE', 'on', 'yes', '0', 'maybe', ...PROTOTYPE_KEYS)),
      ),
      { maxLength: 3 },
    );
    const duplicate = fc.nat({ max: 5 }).map((n) => n === 0);
    const query = fc.tuple(queryPairs, extras, duplicate).map(([valid, extra, twice]) => [...valid, ...extra, ...(twice && valid[0] ? [valid[0]] : [])]);

    const bodySchema = spec.body?.schema as JsonSchema | undefined;
    const validBody = bodySchema ? conforming(bodySchema, (n) => surface.idFor(n, entry.path)) : fc.constant(undefined);
    const notAnObject = fc.oneof(hostileValue.map(toJsonText), fc.constantFrom('', 'null', '[]', '[{}]', '{', 'not json', '"text"', '5', 'true', '\u0000', '{"a":1}{"b":2}', '\ufeff{}'));
    const prototypeKeyed = fc.constantFrom(...PROTOTYPE_KEYS).chain((key) => fc.tuple(fc.constant(key), hostileValue)).map(([key, value]) => `{${JSON.stringify(key)}:${toJsonText(value)}}`);
    const body = bodySchema
      ? fc.oneof(
          { weight: 3, arbitrary: validBody.map(toJsonText) },
          { weight: 6, arbitrary: mutated(validBody).map(toJsonText) },
          { weight: 1, arbitrary: fc.oneof(notAnObject, prototypeKeyed) },
        )
      : entry.method === 'GET'
        ? fc.constant(undefined)
        : sometimes(fc.constantFrom('{}', '{"constructor":1}', 'not json'), 8);
    return fc.record({ path, query, body, contentType, contentEncoding, headers: surface.credentials() });
  }

  async function send(method: string, generated: Generated): Promise<Response> {
    const search = generated.query.map(([k, v]) => `${k}=${v}`).join('&');
    const headers: Record<string, string> = { ...generated.headers };
    if (generated.body !== undefined) {
      if (generated.contentType) headers['content-type'] = generated.contentType;
      if (generated.contentEncoding) headers['content-encoding'] = generated.contentEncoding;
    }
    return fetch(`${app.baseUrl}${generated.path}${search ? `?${search}` : ''}`, {
      method,
      headers,
      ...(generated.body !== undefined ? { body: generated.body } : {}),
    });
  }

  for (const surface of [v2, compat]) {
    for (const entry of surface.table.entries) {
      const target = `${entry.method} ${surface.name}${entry.path}`;
      it(
        target,
        async () => {
          await fc.assert(
            fc.asyncProperty(requests(surface, entry), async (generated) => {
              const before = await probe.fingerprint();
              const res = await send(entry.method, generated);
              const text = await res.text();
              counts.record(target, res.status);
              const context = `${target} ${JSON.stringify(generated).slice(0, 500)} -> ${text.slice(0, 300)}`;
              expect(res.status, context).toBeLessThan(500);
              if (surface.refused(res.status, text, entry.method)) {
                expect(await probe.fingerprint(), `${target} changed state with ${res.status}: ${text.slice(0, 300)}`).toBe(before);
              } else if (entry.method !== 'GET') {
                probe.changed();
              }
            }),
            { numRuns: FUZZ_RUNS, seed: FUZZ_SEED, endOnFailure: true },
          );
        },
        fuzzTimeout(),
      );
    }
  }

  it('RawJson values are spliced as they are (the generator itself)', () => {
    expect(toJsonText({ a: [1, new RawJson('"\\ud800"')] })).toBe('{"a":[1,"\\ud800"]}');
  });
});
