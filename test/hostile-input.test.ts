import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { query } from './support/database.js';
import { compat, seedReturn } from './support/compat.js';
import { accept, drained, postEvent } from './support/events.js';
import { orderBody } from './support/returns.js';
import { createLocation, upsertProduct } from './inventory-fixtures.js';

/**
 * The classes of hostile input a black-box run found (each answered 500, or
 * accepted and then lost or merged data). Every one must be a 4xx naming what
 * is wrong, and change nothing.
 */
interface Problem {
  status: number;
  type: string;
  errors?: { pointer: string; detail: string }[];
}

describe('hostile input', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Hostile');
  let location: string;

  beforeAll(async () => {
    location = await createLocation(app, acme.storeId, 'Main');
    await upsertProduct(app, acme.storeId, { sku: 'CAP', title: 'Cap' });
  });

  const get = async (path: string) => {
    const res = await app.request(path, { token: acme.apiSecret });
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: (await res.json()) as Problem };
  };
  const post = async (path: string, body: string, contentType = 'application/json') => {
    const res = await app.request(path, { method: 'POST', token: acme.apiSecret, headers: { 'content-type': contentType }, body });
    return { status: res.status, body: res.status === 202 && !res.headers.get('content-length') ? null : ((await res.json().catch(() => null)) as Problem | null) };
  };
  const pointers = (problem: Problem | null) => (problem?.errors ?? []).map((e) => e.pointer);
  const gqlErrors = async (queryText: string, variables: Record<string, unknown> | string = {}, extra: Record<string, unknown> = {}) => {
    // Variables may come as JSON text: too deep for JSON.stringify on this side.
    const vars = typeof variables === 'string' ? variables : JSON.stringify(variables);
    const res = await app.request('/graphql', {
      method: 'POST',
      token: acme.apiSecret,
      headers: { 'content-type': 'application/json' },
      body: `{"query":${JSON.stringify(queryText)},"variables":${vars}${Object.keys(extra).length ? `,${JSON.stringify(extra).slice(1, -1)}` : ''}}`,
    });
    const body = (await res.json()) as { errors?: { message: string; extensions?: { code?: string } }[] };
    return { status: res.status, errors: body.errors ?? [] };
  };
  const orderCount = async () => (await query<{ n: number }>(app.databaseUrl, 'select count(*)::int as n from returns."order" where store_id = $1', [acme.storeId]))[0]!.n;

  describe('strings PostgreSQL cannot store', () => {
    it('U+0000 in a query filter is 400 with its pointer', async () => {
      const res = await get(`/v2.2/stores/${acme.storeId}/returns?provider_order_name=a%00b`);
      expect(res.status).toBe(400);
      expect(pointers(res.body)).toEqual(['query#provider_order_name']);
    });

    it('U+0000 in a path id is 400 with its pointer', async () => {
      const res = await get('/v2.2/returns/ret_%00x');
      expect(res.status).toBe(400);
      expect(pointers(res.body)).toEqual(['path#returnId']);
    });

    it('U+0000 in a JSON body string and in an object key is 400 and stores nothing', async () => {
      const before = await orderCount();
      const order = orderBody({ name: '#1\u0000' });
      const res = await post(`/v2.2/stores/${acme.storeId}/custom/orders`, JSON.stringify(order));
      expect(res.status).toBe(400);
      expect(pointers(res.body)).toEqual(['/name']);
      const keyed = await postEvent(app, acme, { eventName: 'E', customer: { email: 'k@example.com' }, data: { 'a\u0000b': 1 } });
      expect(keyed.status).toBe(400);
      expect(pointers((await keyed.json()) as Problem)).toEqual(['/data/a\u0000b']);
      expect(await orderCount()).toBe(before);
    });

    it('U+0000 in a GraphQL argument literal is BAD_USER_INPUT', async () => {
      const res = await gqlErrors(`{ customer(storeId: "${acme.storeId}", email: "a\\u0000@example.com") { id } }`);
      expect(res.status).toBe(400);
      expect(res.errors[0]!.extensions?.code).toBe('BAD_USER_INPUT');
    });

    it('lone surrogates are refused on events (a job payload that jsonb could not hold) with the pointer', async () => {
      const res = await postEvent(app, acme, {}, { raw: '{"eventName":"E","customer":{"email":"s@example.com"},"data":{"note":"\\ud800"}}' });
      expect(res.status).toBe(400);
      expect(pointers((await res.json()) as Problem)).toEqual(['/data/note']);
    });

    it('two orders whose external ids differ only by lone surrogates are both refused, never merged into one', async () => {
      const before = await orderCount();
      for (const id of ['\\ud800', '\\udfff']) {
        const body = JSON.stringify(orderBody({ id: 'PLACEHOLDER' })).replace('"PLACEHOLDER"', `"${id}"`);
        const res = await post(`/v2.2/stores/${acme.storeId}/custom/orders`, body);
        expect(res.status).toBe(400);
        expect(pointers(res.body)).toEqual(['/id']);
      }
      expect(await orderCount()).toBe(before);
    });
  });

  describe('impossible or unstorable dates', () => {
    it('created_at_min=2026-02-30 on returns is 400 with its pointer (it was a 500)', async () => {
      const res = await get(`/v2.2/stores/${acme.storeId}/returns?created_at_min=2026-02-30`);
      expect(res.status).toBe(400);
      expect(pointers(res.body)).toEqual(['query#created_at_min']);
    });

    it('the date-time form on inbound shipments is refused, not rolled over to March 2', async () => {
      const res = await get(`/v2.2/stores/${acme.storeId}/inbound-shipments?created_at_min=2026-02-30T10:00:00Z`);
      expect(res.status).toBe(400);
      expect(pointers(res.body)).toEqual(['query#created_at_min']);
    });

    it.each(['2026-02-30', '0000-01-01'])('GraphQL Date inputs refuse %s', async (date) => {
      const shipment = await gqlErrors(
        'mutation($s: ID!, $i: CreateInboundShipmentInput!) { createInboundShipment(storeId: $s, input: $i) { id } }',
        { s: acme.storeId, i: { locationId: location, estimatedArrivalDate: date, items: [] } },
      );
      expect(shipment.status).toBe(400);
      expect(shipment.errors[0]!.extensions?.code).toBe('BAD_USER_INPUT');
      expect(shipment.errors[0]!.message).toContain('$i');
      const adjust = await gqlErrors('mutation($s: ID!, $i: AdjustInventoryInput!) { adjustInventory(storeId: $s, input: $i) { id } }', {
        s: acme.storeId,
        i: { sku: 'CAP', locationId: location, delta: 1, expirationDate: date },
      });
      expect(adjust.errors[0]!.extensions?.code).toBe('BAD_USER_INPUT');
    });

    it('an event dated in year 0000 is refused at the door instead of accepted and never stored', async () => {
      const res = await postEvent(app, acme, { eventName: 'E', customer: { email: 'y0@example.com' }, eventTimestamp: '0000-01-01T00:00:00Z' });
      expect(res.status).toBe(400);
      expect(pointers((await res.json()) as Problem)).toEqual(['/eventTimestamp']);
    });

    it('a malformed DateTime variable is BAD_USER_INPUT naming the variable, not a masked internal error', async () => {
      const res = await gqlErrors('query($s: ID!, $since: DateTime) { customEvents(storeId: $s, since: $since) { totalCount } }', { s: acme.storeId, since: '2026-02-30T10:00:00Z' });
      expect(res.status).toBe(400);
      expect(res.errors[0]!.extensions?.code).toBe('BAD_USER_INPUT');
      expect(res.errors[0]!.message).toContain('$since');
    });
  });

  describe('numbers beyond the columns', () => {
    it('a line quantity of 2147483648 and a weight of 1e308 are 400 with their pointers', async () => {
      const order = orderBody({}, [{ id: 'big', quantity: 2147483648, price: '1.00' }]);
      const res = await post(`/v2.2/stores/${acme.storeId}/custom/orders`, JSON.stringify(order));
      expect(res.status).toBe(400);
      expect(pointers(res.body)).toEqual(['/lineItems/0/quantity']);
      const heavy = orderBody({}, [{ id: 'heavy', quantity: 1, price: '1.00', weightKg: 1e308 }]);
      const weighed = await post(`/v2.2/stores/${acme.storeId}/custom/orders`, JSON.stringify(heavy));
      expect(weighed.status).toBe(400);
      expect(pointers(weighed.body)).toEqual(['/lineItems/0/weightKg']);
    });

    it('deltas that push a running total past what it holds are a 409 naming the bound, never an internal error', async () => {
      const adjust = (delta: number) =>
        gqlErrors('mutation($s: ID!, $i: AdjustInventoryInput!) { adjustInventory(storeId: $s, input: $i) { quantity } }', { s: acme.storeId, i: { sku: 'CAP', locationId: location, delta } });
      expect((await adjust(2_000_000_000)).errors).toEqual([]);
      const over = await adjust(2_000_000_000);
      expect(over.errors[0]!.extensions).toMatchObject({ code: 'CONFLICT', problem: 'quantity-out-of-range' });
      expect(over.errors[0]!.message).toContain('2147483647');
      const undeclared = await gqlErrors('mutation($s: ID!, $i: ReceiveUndeclaredInput!) { receiveUndeclared(storeId: $s, input: $i) { quantity } }', {
        s: acme.storeId,
        i: { sku: 'CAP', locationId: location, quantity: 2_147_483_647 },
      });
      expect(undeclared.errors).toEqual([]);
      const twice = await gqlErrors('mutation($s: ID!, $i: ReceiveUndeclaredInput!) { receiveUndeclared(storeId: $s, input: $i) { quantity } }', {
        s: acme.storeId,
        i: { sku: 'CAP', locationId: location, quantity: 2_147_483_647 },
      });
      expect(twice.errors[0]!.extensions).toMatchObject({ code: 'CONFLICT', problem: 'quantity-out-of-range' });
    });
  });

  describe('structure', () => {
    const deep = (depth: number, leaf: string) => '['.repeat(depth) + leaf + ']'.repeat(depth);

    it('a 5,000-deep JSON array or object is 400 before any recursive code runs', async () => {
      const array = await post(`/v2.2/stores/${acme.storeId}/events`, `{"eventName":"E","customer":{"email":"d@example.com"},"data":{"$extra":${deep(5000, '1')}}}`);
      expect(array.status).toBe(400);
      expect(pointers(array.body)[0]).toMatch(/^\/data\/\$extra(\/0)+$/);
      const object = await post(`/v2.2/stores/${acme.storeId}/custom/orders`, '{"a":'.repeat(5000) + '1' + '}'.repeat(5000));
      expect(object.status).toBe(400);
      const graphql = await gqlErrors(
        'query($d: SegmentDefinitionInput!, $s: ID!) { segmentMembers(storeId: $s, definition: $d) { totalCount } }',
        `{"s":"${acme.storeId}","d":{"all":[{"profile":{"field":"email","operator":"EQUALS","value":${deep(5000, '1')}}}]}}`,
      );
      expect(graphql.status).toBe(400);
      expect(graphql.errors[0]!.extensions?.code).toBe('BAD_USER_INPUT');
    });

    it.each(['custom/orders', 'returns', 'events', 'events/bulk'])('a JSON body of null, or an empty one, on POST %s is 400', async (route) => {
      const nothing = await post(`/v2.2/stores/${acme.storeId}/${route}`, 'null');
      expect(nothing.status).toBe(400);
      const empty = await post(`/v2.2/stores/${acme.storeId}/${route}`, '');
      expect(empty.status).toBe(400);
      expect(empty.body?.type).toBe('/problems/invalid-json');
    });
  });

  describe('URLs', () => {
    it.each(['%E0%A4%A', '%FF', '%'])('malformed percent-encoding %s in a path segment is 400', async (segment) => {
      const res = await get(`/v2.2/returns/${segment}`);
      expect(res.status).toBe(400);
      expect(res.contentType).toMatch(/^application\/problem\+json/);
      expect(res.body.type).toBe('/problems/invalid-url');
    });

    it('__proto__ as a query parameter is 400 unknown-parameter like every other unknown parameter', async () => {
      const res = await get(`/v2.2/stores/${acme.storeId}/returns?__proto__=x`);
      expect(res.status).toBe(400);
      expect(res.body.type).toBe('/problems/unknown-parameter');
      expect(pointers(res.body)).toEqual(['query#__proto__']);
    });
  });

  describe('prototype keys', () => {
    it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf'])('the compatibility API names an invalid field "%s" in its 422 (byField[field].push was not a function: 500)', async (key) => {
      const ret = await seedReturn(app, acme);
      const res = await compat(app, acme.compatKey, 'POST', `/api/v1/warehouse/return/${ret.numericId}/process`, `{"${key}":"\\u0000"}`);
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual([key]);
      expect(res.body.errors[key].at(-1)).toMatch(/NUL/);
    });

    it('GET /graphql parameters get the body\'s hygiene: a "__proto__" variable and a NUL in operationName are 400 with their pointers', async () => {
      const proto = await gqlGet(`query=%7B__typename%7D&variables=${encodeURIComponent('{"__proto__":{"a":1}}')}`);
      expect(proto.status).toBe(400);
      expect(proto.body.errors?.[0]?.extensions?.errors?.map((e) => e.pointer)).toEqual(['/variables/__proto__']);
      const nul = await gqlGet('query=%7B__typename%7D&operationName=a%00');
      expect(nul.status).toBe(400);
      expect(nul.body.errors?.[0]?.extensions?.errors?.map((e) => e.pointer)).toEqual(['/operationName']);
    });

    it('"__proto__" in event data is refused with its pointer, never silently dropped', async () => {
      const res = await postEvent(app, acme, {}, { raw: '{"eventName":"E","customer":{"email":"p@example.com"},"data":{"__proto__":{"admin":true},"x":1}}' });
      expect(res.status).toBe(400);
      expect(pointers((await res.json()) as Problem)).toEqual(['/data/__proto__']);
    });

    it('"constructor" and "prototype" keys are stored verbatim', async () => {
      await accept(app, acme, { eventName: 'Proto', customer: { email: 'proto@example.com' }, data: { constructor: 'c', prototype: 2 } });
      await drained(app.databaseUrl);
      const [row] = await query<{ data: Record<string, unknown> }>(app.databaseUrl, `select data from events.custom_event where store_id = $1 and event_name = 'Proto'`, [acme.storeId]);
      expect(row!.data).toEqual({ constructor: 'c', prototype: 2 });
    });
  });

  /** A raw POST /graphql: the body as given, with the caller's secret. */
  const gqlRaw = async (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) => {
    const res = await app.request('/graphql', { method: 'POST', token: acme.apiSecret, headers, body });
    const text = await res.text();
    return { status: res.status, text, errors: ((JSON.parse(text) as { errors?: { message: string; extensions?: { code?: string } }[] }).errors ?? []) };
  };
  const gqlGet = async (search: string) => {
    const res = await app.request(`/graphql?${search}`, { token: acme.apiSecret, headers: { 'apollo-require-preflight': 'true' } });
    return { status: res.status, body: (await res.json()) as { data?: unknown; errors?: { extensions?: { code?: string; errors?: { pointer: string }[] } }[] } };
  };

  describe('an operation type the schema does not have', () => {
    it('a subscription is a 400 validation error, alone, beside a query, or over GET (it was a 500 from the query planner)', async () => {
      for (const [doc, operationName] of [['subscription { x }', undefined], ['subscription S { __typename }', 'S'], ['subscription A { x } query B { __typename }', 'B']] as const) {
        const res = await gqlErrors(doc, {}, operationName ? { operationName } : {});
        expect(res.status, doc).toBe(400);
        expect(res.errors.map((e) => e.extensions?.code), doc).toEqual(['GRAPHQL_VALIDATION_FAILED']);
        expect(res.errors[0]!.message).toBe('The schema has no subscription operations.');
      }
      const get = await gqlGet('query=subscription%20%7B%20x%20%7D');
      expect(get.status).toBe(400);
      expect(get.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    });
  });

  describe('automatic persisted queries', () => {
    it('are not supported: every persistedQuery extension is PERSISTED_QUERY_NOT_SUPPORTED, never INTERNAL_SERVER_ERROR', async () => {
      const hash = (text: string) => createHash('sha256').update(text).digest('hex');
      const cases = [
        { query: '{ __typename }', extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } },
        { query: '{ __typename }', extensions: { persistedQuery: { version: 1, sha256Hash: hash('{ __typename }') } } },
        { extensions: { persistedQuery: { version: 1, sha256Hash: hash('{ __typename }') } } },
        { query: '{ __typename }', extensions: { persistedQuery: { version: 2, sha256Hash: 'abc' } } },
        { query: '{ __typename }', extensions: { persistedQuery: 'x' } },
      ];
      for (const body of cases) {
        const res = await gqlRaw(JSON.stringify(body));
        expect(res.status, JSON.stringify(body)).toBe(200);
        expect(res.errors.map((e) => e.extensions?.code), JSON.stringify(body)).toEqual(['PERSISTED_QUERY_NOT_SUPPORTED']);
      }
      const get = await gqlGet(`extensions=${encodeURIComponent(JSON.stringify(cases[2]!.extensions))}`);
      expect(get.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_SUPPORTED');
      // Other extensions are ignored, as Apollo ignores them.
      expect((await gqlRaw('{"query":"{ __typename }","extensions":{"constructor":1,"persistedQuery":null}}')).status).toBe(200);
    });
  });

  describe('request charset and media type', () => {
    it('a charset other than UTF-8, or a media type other than JSON, is 415 on /graphql (latin1 was a 500)', async () => {
      for (const type of ['application/json; charset=latin1', 'application/json; charset=utf-16', 'text/plain', 'application/graphql', 'application/x-www-form-urlencoded']) {
        const res = await gqlRaw('{"query":"{ __typename }"}', { 'content-type': type });
        expect(res.status, type).toBe(415);
        expect(res.errors[0]!.extensions?.code, type).toBe('UNSUPPORTED_MEDIA_TYPE');
      }
      for (const type of ['application/json; charset=UTF-8', 'application/json;charset="utf-8"', 'application/json; charset=utf8']) {
        expect((await gqlRaw('{"query":"{ __typename }"}', { 'content-type': type })).status, type).toBe(200);
      }
    });

    it('a content encoding the service cannot decode is 415, and one that does not decode is 400 invalid-json (they were a 500 and invalid-url)', async () => {
      const bogus = await gqlRaw('{"query":"{ __typename }"}', { 'content-type': 'application/json', 'content-encoding': 'bogus' });
      expect(bogus.status).toBe(415);
      expect(bogus.errors[0]!.extensions?.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      const broken = await gqlRaw('{"query":"{ __typename }"}', { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      expect(broken.status).toBe(400);
      expect(broken.errors[0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', problem: 'invalid-json' });
      const rest = await app.request(`/v2.2/stores/${acme.storeId}/custom/orders`, { method: 'POST', token: acme.apiSecret, headers: { 'content-type': 'application/json', 'content-encoding': 'bogus' }, body: '{}' });
      expect(rest.status).toBe(415);
    });

    it('bodies that are not one JSON object are 400 on /graphql, in GraphQL\'s format', async () => {
      for (const body of ['', 'null', '"text"', '5', '[]', '[{"query":"{ __typename }"}]', '{', '{"query":"{ __typename }"}{}']) {
        const res = await gqlRaw(body);
        expect(res.status, body).toBe(400);
        expect(res.errors[0]!.extensions?.code, body).toBe('BAD_USER_INPUT');
      }
    });

    it('the same charsets are 415 on /v2.2 and /api/v1 (they were read as UTF-8 whatever they said)', async () => {
      const v2 = await post(`/v2.2/stores/${acme.storeId}/custom/orders`, JSON.stringify(orderBody()), 'application/json; charset=latin1');
      expect(v2.status).toBe(415);
      expect(v2.body?.type).toBe('/problems/unsupported-media-type');
      const ret = await seedReturn(app, acme);
      const loop = await app.request(`/api/v1/warehouse/return/${ret.numericId}/note`, {
        method: 'POST',
        headers: { 'x-authorization': acme.compatKey, 'content-type': 'application/json; charset=iso-8859-1' },
        body: '{"content":"x"}',
      });
      expect(loop.status).toBe(415);
      expect(await loop.json()).toEqual({ message: 'Send the body as UTF-8 JSON.' });
    });
  });

  describe('GraphQL', () => {
    it('two operations and no operationName is a 400 client error, not INTERNAL_SERVER_ERROR', async () => {
      const res = await gqlErrors('query A { __typename } query B { __typename }');
      expect(res.status).toBe(400);
      expect(res.errors[0]!.extensions?.code).toBe('BAD_USER_INPUT');
      const unknown = await gqlErrors('query A { __typename }', {}, { operationName: 'Nope' });
      expect(unknown.status).toBe(400);
      expect(unknown.errors[0]!.extensions?.code).toBe('BAD_USER_INPUT');
    });
  });
});
