import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../platform/rate-limit.js';
import type { TableEntry } from '../../rest-facade/pipeline/routing.js';
import { v2Routes } from '../../rest-facade/v2/index.js';
import { useTestAccount, useTestApp } from '../support/app.js';
import { accept, drained } from '../support/events.js';
import { orderBody, postReturn, pushOrder, returnBody } from '../support/returns.js';
import { createWebhook } from '../support/webhooks.js';
import { requestErasure } from '../support/privacy.js';
import { adjust, createLocation, createShipment, upsertProduct } from '../inventory-fixtures.js';
import { conforming, hostileValue, mutated, RawJson, toJsonText, type JsonSchema } from './arbitraries.js';
import { FUZZ_RUNS, FUZZ_SEED, FUZZ_TIMEOUT_MS, StateProbe, StatusCounts } from './harness.js';

/**
 * Every /v2.2 route, fed requests generated from its own schemas and mutated
 * with the hostile classes of input: wrong types, strings PostgreSQL cannot
 * store, impossible dates, numbers beyond the columns, deep structures,
 * prototype keys, malformed URLs, duplicate and unknown query parameters,
 * wrong content types, bad credentials. Whatever comes in: never a 5xx, a
 * pointer on every validation problem, and nothing changed by a refusal.
 */

interface Generated {
  path: string;
  query: [string, string][];
  body?: string;
  contentType?: string;
  auth?: string;
}

/** Query values already percent-encoded, hostile ones included (what encodeURIComponent would refuse to produce). */
const HOSTILE_QUERY = ['%00', 'a%00b', '%ED%A0%80', '%FF', '%E0%A4%A', '%', '2026-02-30', '0000-01-01T00:00:00Z', 'x'.repeat(3000), '', '%20', 'PENDING%00'];
const HOSTILE_SEGMENTS = ['%00', '%FF', '%E0%A4%A', '%', 'x'.repeat(400), 'ret_unknown', '%2F..%2F', '%ED%A0%80', '..'];

describe('fuzz: every /v2.2 route', () => {
  const app = useTestApp({ API_RATE_LIMIT_PER_MINUTE: '1000000' });
  const acme = useTestAccount(app, 'Fuzz');
  const other = useTestAccount(app, 'Other');
  let probe: StateProbe;
  const counts = new StatusCounts();
  const ids: Record<string, string> = {};
  const webhookIds: string[] = [];

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
    // Several subscriptions: the DELETE route's valid cases remove some, the other routes keep finding one.
    for (let i = 0; i < 8; i++) {
      const hook = await createWebhook(app, acme, { callback: { url: 'http://127.0.0.1:9/fuzz', auth: null }, topic: 'return' });
      expect(hook.status).toBe(201);
      webhookIds.push(hook.body.webhook.id);
    }
    await accept(app, acme, { eventName: 'Seen', customer: { email: 'fuzz@example.com' } });
    await drained(app.databaseUrl);
    ids.erasureId = await requestErasure(app, acme, { email: 'gone@example.com' });
    probe = new StateProbe(app.databaseUrl);
    probe.changed();
  });
  afterAll(async () => {
    // The service is still ready after everything it was fed.
    if (probe) expect((await fetch(`${app.baseUrl}/readyz`)).status).toBe(200);
    console.log(counts.report('REST fuzz: responses by route and status'));
    await probe?.close();
  });

  // The route table is read for its specs only; no handler of this instance runs.
  const table = v2Routes({} as never, { accounts: {} as never, adminToken: '', secretLimiter: new MemoryRateLimiter(1, 1), events: {} as never, webhooks: {} as never });

  /** Real ids of the fuzz account for the path parameters and id-like fields. */
  function idFor(name: string, path: string): fc.Arbitrary<string> | undefined {
    if (name === 'storeId') return fc.constant(acme.storeId);
    if (name === 'returnId') return fc.constant(ids.returnId!);
    if (name === 'webhookId') return fc.constantFrom(...webhookIds);
    if (name === 'erasureId') return fc.constant(ids.erasureId!);
    if (name === 'url') return fc.constantFrom('http://127.0.0.1:9/fuzz', 'https://93.184.215.14/hook');
    if (name === 'id') return fc.constant(path.includes('inbound-shipments') ? ids.shipmentId! : ids.itemId!);
    if (name === 'location_id') return fc.constant(ids.location!);
    if (name === 'externalOrderId') return fc.constant('FUZZ-1');
    if (name === 'lineItemId') return fc.constantFrom('l1', 'l2');
    if (name === 'provider') return fc.constant('custom');
    return undefined;
  }

  function requests(entry: TableEntry): fc.Arbitrary<Generated> {
    const { spec } = entry.route;
    const names = [...entry.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
    const segment = (name: string) =>
      fc.oneof({ weight: 6, arbitrary: idFor(name, entry.path)!.map(encodeURIComponent) }, { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_SEGMENTS, other.storeId) });
    const path = fc.tuple(...names.map(segment)).map((values) => names.reduce((p, name, i) => p.replace(`:${name}`, values[i]!), `/v2.2${entry.path}`));

    const querySchema = spec.query as JsonSchema | undefined;
    const validQuery = querySchema ? (conforming(querySchema, (n) => idFor(n, entry.path)) as fc.Arbitrary<Record<string, string>>) : fc.constant({});
    const queryPairs = validQuery.map((q) => Object.entries(q).map(([k, v]) => [k, encodeURIComponent(String(v))] as [string, string]));
    const extras = fc.array(
      fc.oneof(
        fc.tuple(fc.constantFrom(...Object.keys(querySchema?.properties ?? { status: {} })), fc.constantFrom(...HOSTILE_QUERY)),
        fc.tuple(fc.constantFrom('__proto__', 'constructor', 'unknown', 'page-size', 'page-continue', 'status[]', 'a%00'), fc.constantFrom('1', 'x', ...HOSTILE_QUERY)),
        fc.tuple(fc.constant('page-size'), fc.constantFrom('1', '20', '500', '0', '501', '-1', '1e2', 'abc', '99999999999999999999')),
        fc.tuple(fc.constant('page-continue'), fc.constantFrom('garbage', 'a.b', 'eyJrIjpbXX0.xxxx', '%00')),
      ),
      { maxLength: 3 },
    );
    const query = fc.tuple(queryPairs, extras, fc.boolean()).map(([valid, extra, duplicate]) => [...valid, ...extra, ...(duplicate && valid[0] ? [valid[0]] : [])]);

    const bodySchema = spec.body?.schema as JsonSchema | undefined;
    const validBody = bodySchema ? conforming(bodySchema, (n) => idFor(n, entry.path)) : fc.constant(undefined);
    const body = bodySchema
      ? fc.oneof(
          { weight: 3, arbitrary: validBody.map(toJsonText) },
          { weight: 6, arbitrary: mutated(validBody).map(toJsonText) },
          { weight: 1, arbitrary: fc.oneof(hostileValue.map(toJsonText), fc.constantFrom('', 'null', '[]', '{', 'not json', '"text"', '\u0000', '{"a":1}{"b":2}')) },
        )
      : fc.constant(undefined);
    const contentType = fc.oneof({ weight: 8, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16', '', 'application/merge-patch+json') });
    const auth = fc.oneof(
      { weight: 12, arbitrary: fc.constant(`Bearer ${acme.apiSecret}`) },
      { weight: 1, arbitrary: fc.constantFrom('', 'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', `Bearer ${acme.apiSecret}x`, 'Bearer \u00e9', `bearer ${other.apiSecret}`, `Bearer ${'a'.repeat(5000)}`) },
    );
    return fc.record({ path, query, body, contentType, auth });
  }

  async function send(method: string, generated: Generated): Promise<Response> {
    const search = generated.query.map(([k, v]) => `${k}=${v}`).join('&');
    const headers: Record<string, string> = {};
    if (generated.auth) headers.authorization = generated.auth;
    if (generated.body !== undefined && generated.contentType) headers['content-type'] = generated.contentType;
    return fetch(`${app.baseUrl}${generated.path}${search ? `?${search}` : ''}`, {
      method,
      headers,
      ...(generated.body !== undefined ? { body: generated.body } : {}),
    });
  }

  for (const entry of table.entries) {
    const target = `${entry.method} ${entry.path}`;
    it(
      target,
      async () => {
        await fc.assert(
          fc.asyncProperty(requests(entry), async (generated) => {
            const before = await probe.fingerprint();
            const res = await send(entry.method, generated);
            const text = await res.text();
            counts.record(target, res.status);
            expect(res.status, `${target} ${JSON.stringify(generated).slice(0, 500)} -> ${text.slice(0, 300)}`).toBeLessThan(500);
            if (res.status >= 400) {
              const problem = JSON.parse(text) as { type?: string; errors?: { pointer?: unknown }[] };
              expect(problem.type, text).toMatch(/^\/problems\//);
              if (problem.type === '/problems/validation-failed') {
                expect(problem.errors?.length, text).toBeGreaterThan(0);
                for (const e of problem.errors!) expect(typeof e.pointer, text).toBe('string');
              }
              expect(await probe.fingerprint(), `${target} changed state with ${res.status}: ${text.slice(0, 300)}`).toBe(before);
            } else if (entry.method !== 'GET') {
              probe.changed();
            }
          }),
          { numRuns: FUZZ_RUNS, seed: FUZZ_SEED, endOnFailure: true },
        );
      },
      FUZZ_TIMEOUT_MS,
    );
  }

  it('RawJson values are spliced as they are (the generator itself)', () => {
    expect(toJsonText({ a: [1, new RawJson('"\\ud800"')] })).toBe('{"a":[1,"\\ud800"]}');
  });
});
