import fc from 'fast-check';
import { createHash } from 'node:crypto';
import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  type GraphQLScalarType,
  isCompositeType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type IntrospectionQuery,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from '../support/app.js';
import { accept, drained } from '../support/events.js';
import { orderBody, postReturn, pushOrder, returnBody } from '../support/returns.js';
import { adjust, createLocation, createShipment, upsertProduct } from '../inventory-fixtures.js';
import { contentEncoding, contentType, hostileValue, PROTOTYPE_KEYS, RawJson, sometimes, toJsonText } from './arbitraries.js';
import { FUZZ_RUNS, FUZZ_SEED, fuzzTimeout, StateProbe, StatusCounts } from './harness.js';

/**
 * Every query and mutation of the graph, called with arguments generated from
 * their GraphQL types (real ids of the caller's account most of the time) and
 * mutated with the hostile classes of input. Whatever comes in: never a 5xx
 * nor INTERNAL_SERVER_ERROR, and nothing changed by a refused mutation.
 */
/** The whole-request generator runs this many requests per run of each field (20 runs: 500 requests). */
const REQUEST_RUNS_PER_FIELD_RUN = 25;
/** Room in the time limit for this many fields (the graph has about 65). */
const MAX_FIELDS = 100;

describe('fuzz: every GraphQL query and mutation', () => {
  const app = useTestApp({ API_RATE_LIMIT_PER_MINUTE: '1000000' });
  const acme = useTestAccount(app, 'Fuzz');
  const other = useTestAccount(app, 'Other');
  let probe: StateProbe;
  let fields: { kind: 'query' | 'mutation'; field: GraphQLField<unknown, unknown> }[] = [];
  const counts = new StatusCounts();
  const ids: string[] = [];

  beforeAll(async () => {
    const order = orderBody({ id: 'FUZZ-1' }, [{ id: 'l1', quantity: 1000, price: '10.00', sku: 'CAP' }]);
    const pushed = await pushOrder(app, acme, order);
    const created = await postReturn(app, acme, returnBody('FUZZ-1', [{ lineItemId: 'l1', quantity: 1, reason: 'r' }]));
    const location = await createLocation(app, acme.storeId, 'Main');
    const product = await upsertProduct(app, acme.storeId, { sku: 'CAP', title: 'Cap' });
    const item = await adjust(app, acme.storeId, { sku: 'CAP', locationId: location, delta: 5 });
    const shipment = await createShipment(app, acme.storeId, { locationId: location, items: [{ productId: product, quantity: 3 }] });
    await accept(app, acme, { eventName: 'Seen', customer: { email: 'fuzz@example.com' } });
    await drained(app.databaseUrl);
    ids.push(acme.storeId, pushed.body.order.id, created.body.return.id, created.body.return.items[0].id, location, product, item.id, shipment.id, shipment.items[0]!.id);
    const introspection = await app.graphql<IntrospectionQuery>(getIntrospectionQuery());
    const schema = buildClientSchema(introspection.data!);
    fields = [
      ...Object.values(schema.getQueryType()!.getFields()).map((field) => ({ kind: 'query' as const, field })),
      ...Object.values(schema.getMutationType()!.getFields()).map((field) => ({ kind: 'mutation' as const, field })),
    ].filter(({ field }) => !field.name.startsWith('_'));
    probe = new StateProbe(app.databaseUrl);
    probe.changed();
  });
  afterAll(async () => {
    if (probe) expect((await fetch(`${app.baseUrl}/readyz`)).status).toBe(200);
    console.log(counts.report('GraphQL fuzz: responses by field and outcome'));
    await probe?.close();
  });

  const sampleStrings = fc.constantFrom('a', 'fuzz@example.com', '+15550001111', 'CAP', 'Seen', '#1001', 'open', 'x'.repeat(300), '');
  const scalar = (type: GraphQLScalarType, name: string): fc.Arbitrary<unknown> => {
    switch (type.name) {
      case 'ID':
        return name === 'storeId' ? fc.oneof({ weight: 8, arbitrary: fc.constant(acme.storeId) }, { weight: 1, arbitrary: fc.constant(other.storeId) }) : fc.oneof(fc.constantFrom(...ids), fc.constant('unknown_1'));
      case 'String':
        return sampleStrings;
      case 'Int':
        return fc.integer({ min: -5, max: 600 });
      case 'Float':
        return fc.double({ min: -1000, max: 1000, noNaN: true, noDefaultInfinity: true });
      case 'Boolean':
        return fc.boolean();
      case 'DateTime':
        return fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
      case 'Date':
        return fc.constantFrom('2026-11-24', '2027-01-31');
      case 'JSON':
        return fc.oneof(fc.constant({}), fc.dictionary(fc.constantFrom('eventName', 'customer', 'data', 'id', 'name', 'status'), fc.oneof(sampleStrings, fc.integer(), fc.constant({ email: 'j@example.com' })), { maxKeys: 4 }));
      default:
        return sampleStrings;
    }
  };

  /**
   * Values of a GraphQL input type; `hostile` sometimes replaces one with a hostile value. Input types
   * may be recursive (a flow's condition step holds steps): past MAX_INPUT_DEPTH levels, lists are
   * empty and optional fields left out, so the generator ends.
   */
  const MAX_INPUT_DEPTH = 4;
  function inputValue(type: GraphQLInputType, name: string, depth = 0): fc.Arbitrary<unknown> {
    const maybeHostile = (valid: fc.Arbitrary<unknown>) => fc.oneof({ weight: 5, arbitrary: valid }, { weight: 1, arbitrary: hostileValue });
    if (type instanceof GraphQLNonNull) return inputValue(type.ofType, name, depth).filter((v) => v !== null);
    if (type instanceof GraphQLList) return maybeHostile(depth >= MAX_INPUT_DEPTH ? fc.constant([]) : fc.array(inputValue(type.ofType, name, depth + 1), { maxLength: 3 }));
    if (type instanceof GraphQLEnumType) return maybeHostile(fc.constantFrom(...type.getValues().map((v) => v.value as string)));
    if (type instanceof GraphQLInputObjectType) {
      const fields = Object.values(type.getFields()).filter((f) => depth < MAX_INPUT_DEPTH || f.type instanceof GraphQLNonNull);
      const entries = fields.map((f) => [f.name, f.type instanceof GraphQLNonNull ? inputValue(f.type, f.name, depth + 1) : fc.option(inputValue(f.type, f.name, depth + 1), { nil: undefined })] as const);
      return maybeHostile(fc.record(Object.fromEntries(entries)).map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))));
    }
    return maybeHostile(scalar(type as GraphQLScalarType, name));
  }

  function operationOf(kind: string, field: GraphQLField<unknown, unknown>, name = 'Fuzz'): string {
    const args: readonly GraphQLArgument[] = field.args;
    const defs = args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
    const call = args.map((a) => `${a.name}: $${a.name}`).join(', ');
    const selection = isCompositeType(getNamedType(field.type)) ? ' { __typename }' : '';
    return `${kind} ${name}${defs ? `(${defs})` : ''} { ${field.name}${call ? `(${call})` : ''}${selection} }`;
  }

  /**
   * Sends one request and checks what every answer must hold: below 500, no INTERNAL_SERVER_ERROR,
   * and, when the request may change state, an unchanged database after a refusal.
   */
  async function exchange(target: string, url: string, init: RequestInit, mayChange: boolean, shown: string): Promise<void> {
    const before = mayChange ? await probe.fingerprint() : '';
    const res = await fetch(url, init);
    const text = await res.text();
    const context = `${target} ${shown.slice(0, 400)} -> ${res.status} ${text.slice(0, 300)}`;
    // Browsers asking for HTML get the explorer page; every other answer is GraphQL's JSON.
    const result = (res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : {}) as { errors?: { extensions?: { code?: string } }[] };
    const code = result.errors?.[0]?.extensions?.code;
    counts.record(target, code ? `${res.status}:${code}` : res.status);
    expect(res.status, context).toBeLessThan(500);
    expect(result.errors?.some((e) => e.extensions?.code === 'INTERNAL_SERVER_ERROR') ?? false, context).toBe(false);
    if (!mayChange) return;
    if (res.status >= 400 || result.errors?.length) expect(await probe.fingerprint(), `${context}: changed state and failed`).toBe(before);
    else probe.changed();
  }

  const auths = () => fc.constantFrom(`Bearer ${acme.apiSecret}`, `Bearer ${acme.apiSecret}`, `Bearer ${acme.apiSecret}`, `Bearer ${other.apiSecret}`, '');
  const variablesOf = (field: GraphQLField<unknown, unknown>) =>
    fc
      .record(Object.fromEntries(field.args.map((a) => [a.name, a.type instanceof GraphQLNonNull ? inputValue(a.type, a.name) : fc.option(inputValue(a.type, a.name), { nil: undefined })])))
      .map((vars) => Object.fromEntries(Object.entries(vars).filter(([, v]) => v !== undefined)));

  it('covers every field of the graph', async () => {
    expect(fields.length).toBeGreaterThan(20);
    expect(fields.length).toBeLessThanOrEqual(MAX_FIELDS);
    for (const { kind, field } of fields) {
      await fc.assert(
        fc.asyncProperty(variablesOf(field), auths(), async (vars, auth) => {
          const body = `{"query":${JSON.stringify(operationOf(kind, field))},"variables":${toJsonText(vars)}}`;
          const init = { method: 'POST', headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) }, body };
          await exchange(`${kind} ${field.name}`, `${app.baseUrl}/graphql`, init, kind === 'mutation', body);
        }),
        { numRuns: FUZZ_RUNS, seed: FUZZ_SEED, endOnFailure: true },
      );
    }
  }, fuzzTimeout(MAX_FIELDS));

  /** Documents beside the generated operations: not executable, invalid, or built around prototype-named names. */
  const ODD_DOCUMENTS = [
    '',
    ' ',
    '{',
    '# a comment only',
    'type X { a: Int }',
    'schema { query: Query }',
    'subscription { __typename }',
    'subscription S { x } query Q { __typename }',
    'query @skip(if: true) { __typename }',
    '{ __typename @defer }',
    '{ ...Missing }',
    'fragment F on Query { ...F } { ...F }',
    'query ($a: Int, $a: Int) { __typename }',
    'query Q { __typename } query Q { __typename }',
    '{ __typename } { __typename }',
    'mutation { __typename }',
    '{ __schema { types { name } } }',
    '{'.repeat(70),
    '{ a: __typename a: __schema { description } }',
    ...PROTOTYPE_KEYS.flatMap((name) => [
      `{ ${name}: __typename }`,
      `{ ...${name} } fragment ${name} on Query { __typename }`,
      `query ${name} { __typename }`,
      `query ($${name}: Int = 1) { __typename }`,
      `{ __type(name: "${name}") { name } }`,
    ]),
  ];

  interface Exchange {
    kind: string;
    method: string;
    search: string;
    body?: string;
    headers: Record<string, string>;
  }

  /**
   * Whole GraphQL requests rather than their variables: operation types and
   * names, several operations in one document, `extensions` (persisted
   * queries), batched arrays, GET with query strings, content types with
   * parameters and charsets, bodies that are not JSON objects, and keys
   * named after Object.prototype members in every JSON object and query string.
   */
  function exchanges(): fc.Arbitrary<Exchange> {
    const operation = fc.constantFrom(...fields).chain(({ kind, field }) =>
      fc.record({
        text: fc.tuple(fc.constantFrom(kind, kind, kind, 'query', 'mutation', 'subscription'), fc.constantFrom('Fuzz', 'A', ...PROTOTYPE_KEYS)).map(([keyword, name]) => operationOf(keyword, field, name)),
        variables: variablesOf(field),
      }),
    );
    const document = fc.oneof(
      { weight: 6, arbitrary: operation },
      { weight: 2, arbitrary: fc.array(operation, { minLength: 2, maxLength: 3 }).map((ops) => ({ text: ops.map((o) => o.text).join('\n'), variables: Object.assign({}, ...ops.map((o) => o.variables)) as Record<string, unknown> })) },
      { weight: 3, arbitrary: fc.constantFrom(...ODD_DOCUMENTS).map((text) => ({ text, variables: {} as Record<string, unknown> })) },
    );
    const protoKeyed = fc.dictionary(fc.constantFrom(...PROTOTYPE_KEYS), hostileValue, { minKeys: 1, maxKeys: 2 });
    const request = document.chain(({ text, variables }) => {
      const names = [...text.matchAll(/(?:query|mutation|subscription) (\w+)/g)].map((m) => m[1]!);
      const hash = createHash('sha256').update(text).digest('hex');
      return fc
        .record({
          query: fc.oneof({ weight: 12, arbitrary: fc.constant<unknown>(text) }, { weight: 1, arbitrary: fc.constantFrom<unknown>(undefined, 5, null, [text], { text }) }),
          variables: fc.oneof(
            { weight: 8, arbitrary: fc.constant<unknown>(variables) },
            { weight: 2, arbitrary: protoKeyed.map((extra): unknown => ({ ...variables, ...extra })) },
            { weight: 1, arbitrary: fc.constantFrom<unknown>(undefined, '{}', [], null, 5) },
          ),
          operationName: sometimes(fc.oneof({ weight: 4, arbitrary: names.length ? fc.constantFrom<unknown>(...names) : fc.constant<unknown>('Missing') }, { weight: 1, arbitrary: fc.constantFrom<unknown>('Missing', '', 5, null, ...PROTOTYPE_KEYS) }), 2),
          extensions: sometimes(
            fc.constantFrom<unknown>(
              { persistedQuery: { version: 1, sha256Hash: hash } },
              { persistedQuery: { version: 1, sha256Hash: 'abc' } },
              { persistedQuery: { version: 2, sha256Hash: hash } },
              { persistedQuery: 'x' },
              { persistedQuery: null },
              { constructor: 1, toString: { a: 1 } },
              5,
              [],
              'x',
            ),
            5,
          ),
          extra: sometimes(protoKeyed, 6),
        })
        .map(({ extra, ...members }) => Object.fromEntries(Object.entries({ ...members, ...extra }).filter(([, v]) => v !== undefined)));
    });
    const json = (value: unknown) => (value instanceof RawJson || typeof value !== 'string' ? toJsonText(value) : value);
    const headers = fc
      .record({ auth: auths(), contentType, contentEncoding, preflight: fc.nat({ max: 4 }).map((n) => n > 0), accept: sometimes(fc.constantFrom('application/json', 'application/graphql-response+json', 'multipart/mixed; deferSpec=20220824', '*/*', 'text/html'), 4) })
      .map(({ auth, contentType: type, contentEncoding: encoding, preflight, accept }) => ({
        ...(auth ? { authorization: auth } : {}),
        'content-type': type,
        ...(encoding ? { 'content-encoding': encoding } : {}),
        ...(preflight ? { 'apollo-require-preflight': 'true' } : {}),
        ...(accept ? { accept } : {}),
      }));
    const post = fc.record({ request, headers }).map(({ request: r, headers: h }): Exchange => ({ kind: 'POST', method: 'POST', search: '', body: toJsonText(r), headers: h }));
    const batched = fc.record({ requests: fc.array(request, { minLength: 0, maxLength: 2 }), headers }).map(({ requests, headers: h }): Exchange => ({ kind: 'POST batched array', method: 'POST', search: '', body: toJsonText(requests), headers: h }));
    const notAnObject = fc
      .record({ body: fc.oneof(hostileValue.map(toJsonText), fc.constantFrom('', 'null', '"{ __typename }"', '5', 'true', '{', 'not json', '{"query":"{ __typename }"}{}', '\u0000')), headers })
      .map(({ body, headers: h }): Exchange => ({ kind: 'POST not an object', method: 'POST', search: '', body, headers: h }));
    const get = fc
      .record({
        request,
        extra: fc.array(fc.tuple(fc.constantFrom(...PROTOTYPE_KEYS, 'query', 'variables', 'operationName', 'extensions'), fc.constantFrom('x', '%00', '%FF', '%E0%A4%A', '{}', '%7B%22__proto__%22%3A1%7D')), { maxLength: 2 }),
        headers,
      })
      .map(({ request: r, extra, headers: h }): Exchange => {
        const params = Object.entries(r).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(json(v))}`);
        const { 'content-type': _type, 'content-encoding': _encoding, ...rest } = h;
        return { kind: 'GET', method: 'GET', search: [...params, ...extra.map(([k, v]) => `${k}=${v}`)].join('&'), headers: rest };
      });
    const otherMethod = fc
      .record({ method: fc.constantFrom('PUT', 'PATCH', 'DELETE', 'OPTIONS'), request, headers })
      .map(({ method, request: r, headers: h }): Exchange => ({ kind: 'other methods', method, search: '', body: method === 'OPTIONS' ? undefined : toJsonText(r), headers: h }));
    return fc.oneof({ weight: 8, arbitrary: post }, { weight: 4, arbitrary: get }, { weight: 1, arbitrary: batched }, { weight: 2, arbitrary: notAnObject }, { weight: 1, arbitrary: otherMethod });
  }

  it('generates the request itself: operation types and names, documents, extensions, batches, GET, media types, bodies, prototype-named keys', async () => {
    await fc.assert(
      fc.asyncProperty(exchanges(), async (ex) => {
        const url = `${app.baseUrl}/graphql${ex.search ? `?${ex.search}` : ''}`;
        await exchange(`request: ${ex.kind}`, url, { method: ex.method, headers: ex.headers, ...(ex.body !== undefined ? { body: ex.body } : {}) }, ex.method !== 'GET', `${ex.method} ${ex.search} ${ex.body ?? ''}`);
      }),
      { numRuns: FUZZ_RUNS * REQUEST_RUNS_PER_FIELD_RUN, seed: FUZZ_SEED, endOnFailure: true },
    );
  }, fuzzTimeout(REQUEST_RUNS_PER_FIELD_RUN));

  it('RawJson values survive as variables (the generator itself)', () => {
    expect(toJsonText({ v: new RawJson('1e400') })).toBe('{"v":1e400}');
  });
});
