import fc from 'fast-check';
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
import { hostileValue, RawJson, toJsonText } from './arbitraries.js';
import { FUZZ_RUNS, FUZZ_SEED, FUZZ_TIMEOUT_MS, StateProbe, StatusCounts } from './harness.js';

/**
 * Every query and mutation of the graph, called with arguments generated from
 * their GraphQL types (real ids of the caller's account most of the time) and
 * mutated with the hostile classes of input. Whatever comes in: never a 5xx
 * nor INTERNAL_SERVER_ERROR, and nothing changed by a refused mutation.
 */
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

  function operationOf(kind: 'query' | 'mutation', field: GraphQLField<unknown, unknown>): string {
    const args: readonly GraphQLArgument[] = field.args;
    const defs = args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
    const call = args.map((a) => `${a.name}: $${a.name}`).join(', ');
    const selection = isCompositeType(getNamedType(field.type)) ? ' { __typename }' : '';
    return `${kind} Fuzz${defs ? `(${defs})` : ''} { ${field.name}${call ? `(${call})` : ''}${selection} }`;
  }

  it('covers every field of the graph', async () => {
    expect(fields.length).toBeGreaterThan(20);
    for (const { kind, field } of fields) {
      const target = `${kind} ${field.name}`;
      const variables = fc.record(Object.fromEntries(field.args.map((a) => [a.name, a.type instanceof GraphQLNonNull ? inputValue(a.type, a.name) : fc.option(inputValue(a.type, a.name), { nil: undefined })])));
      await fc.assert(
        fc.asyncProperty(variables, fc.constantFrom(`Bearer ${acme.apiSecret}`, `Bearer ${acme.apiSecret}`, `Bearer ${acme.apiSecret}`, `Bearer ${other.apiSecret}`, ''), async (vars, auth) => {
          const before = kind === 'mutation' ? await probe.fingerprint() : '';
          const body = `{"query":${JSON.stringify(operationOf(kind, field))},"variables":${toJsonText(Object.fromEntries(Object.entries(vars).filter(([, v]) => v !== undefined)))}}`;
          const res = await fetch(`${app.baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) }, body });
          const text = await res.text();
          const result = JSON.parse(text) as { data?: Record<string, unknown> | null; errors?: { extensions?: { code?: string } }[] };
          const code = result.errors?.[0]?.extensions?.code;
          counts.record(target, code ? `${res.status}:${code}` : res.status);
          expect(res.status, `${target} ${body.slice(0, 400)} -> ${text.slice(0, 300)}`).toBeLessThan(500);
          expect(result.errors?.some((e) => e.extensions?.code === 'INTERNAL_SERVER_ERROR') ?? false, `${target} ${body.slice(0, 400)} -> ${text.slice(0, 300)}`).toBe(false);
          if (kind === 'mutation') {
            if (result.errors?.length) expect(await probe.fingerprint(), `${target} changed state and failed: ${text.slice(0, 300)}`).toBe(before);
            else probe.changed();
          }
        }),
        { numRuns: FUZZ_RUNS, seed: FUZZ_SEED, endOnFailure: true },
      );
    }
  }, FUZZ_TIMEOUT_MS * 8);

  it('RawJson values survive as variables (the generator itself)', () => {
    expect(toJsonText({ v: new RawJson('1e400') })).toBe('{"v":1e400}');
  });
});
