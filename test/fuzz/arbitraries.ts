import fc from 'fast-check';

/**
 * Request generators for the fuzz suite: values that conform to a route's
 * own JSON Schema (the schemas the code validates with), and the hostile
 * classes of input the service must refuse with a 4xx, never a 500.
 */

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  format?: string;
  enum?: unknown[];
  pattern?: string;
  maxProperties?: number;
  requireAnyOf?: string[];
}

/** A value written into the request as this exact JSON text (what JSON.stringify cannot or must not produce). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON text of a generated value; RawJson parts are spliced in as they are. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`)
      .join(',')}}`;
  }
  return value === undefined ? 'null' : JSON.stringify(value);
}

const FORMAT_SAMPLES: Record<string, fc.Arbitrary<string>> = {
  'date-time': fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()),
  date: fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  'time-bound': fc.oneof(
    fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()),
    fc.constantFrom('2026-01-01', '2026-11-24'),
  ),
  email: fc.nat({ max: 999 }).map((n) => `fuzz${n}@example.com`),
  phone: fc.integer({ min: 100_000_000, max: 999_999_999 }).map((n) => `+1${n}`),
  currency: fc.constantFrom('USD', 'EUR', 'JPY', 'GBP'),
  'country-code': fc.constantFrom('US', 'FR', 'DE', 'JP'),
  'time-zone': fc.constantFrom('UTC', 'Europe/Paris', 'America/New_York'),
  decimal: fc.integer({ min: 0, max: 99_999 }).map((n) => (n / 100).toFixed(2)),
  'money-amount': fc.integer({ min: 0, max: 99_999 }).map((n) => (n / 100).toFixed(2)),
};

const typesOf = (schema: JsonSchema): string[] => (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []);

/** Values that conform to `schema` (our TypeBox subset); `ids` supplies real ids for properties that name one. */
export function conforming(schema: JsonSchema, ids: (name: string) => fc.Arbitrary<string> | undefined = () => undefined, name = ''): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const types = typesOf(schema).filter((t) => t !== 'null');
  const type = types[0];
  switch (type) {
    case 'string': {
      const known = ids(name);
      if (known) return known;
      if (schema.format && FORMAT_SAMPLES[schema.format]) return FORMAT_SAMPLES[schema.format]!;
      const min = Math.max(schema.minLength ?? 0, schema.pattern ? 1 : 0);
      const max = Math.min(schema.maxLength ?? 40, 40);
      return fc.string({ minLength: min, maxLength: Math.max(min, max) }).filter((s) => !schema.pattern || /\S/.test(s));
    }
    case 'integer':
      return fc.integer({ min: Math.max(schema.minimum ?? -1000, -1000), max: Math.min(schema.maximum ?? 1000, 1000) }).filter((n) => n !== 0 || schema.minimum === 0 || (schema.minimum ?? -1) > 0);
    case 'number':
      return fc.double({ min: Math.max(schema.minimum ?? -1000, -1000), max: Math.min(schema.maximum ?? 1000, 1000), noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(conforming(schema.items ?? {}, ids, name), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) });
    case 'object': {
      const props = schema.properties ?? {};
      const required = new Set(schema.required ?? []);
      const entries = Object.entries(props).map(([key, sub]) => [key, required.has(key) ? conforming(sub, ids, key) : fc.option(conforming(sub, ids, key), { nil: undefined })] as const);
      const record = fc.record(Object.fromEntries(entries)).map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)));
      if (!Object.keys(props).length) return fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean()), { maxKeys: 4 });
      if (schema.requireAnyOf) {
        const anyOf = schema.requireAnyOf;
        return record.chain((o) => (anyOf.some((k) => k in o) ? fc.constant(o) : conforming(props[anyOf[0]!]!, ids, anyOf[0]!).map((v) => ({ ...o, [anyOf[0]!]: v }))));
      }
      return record;
    }
    default:
      return fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean(), fc.constant(null));
  }
}

/**
 * Names of Object.prototype's members (and `prototype`): as a key or as a
 * value used as one, each reaches an inherited member wherever client input
 * indexes a plain object (`byField[field].push is not a function`).
 */
export const PROTOTYPE_KEYS: readonly string[] = [...Object.getOwnPropertyNames(Object.prototype), 'prototype'];

/** Content types with parameters and charsets: JSON in UTF-8 said several ways, and what a JSON entry point must refuse with 415. */
export const contentType: fc.Arbitrary<string> = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  {
    weight: 2,
    arbitrary: fc.constantFrom('application/json; charset=utf-8', 'application/json;charset=UTF-8', 'application/json; charset="utf-8"', 'application/json; charset=utf8', 'application/vnd.api+json', 'application/json; boundary=x'),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/json; charset=latin1',
      'application/json; charset=iso-8859-1',
      'application/json; charset=utf-16',
      'application/json; charset=utf-32le',
      'application/json; charset=',
      'application/json; charset=bogus',
      'application/json; charset=utf-8; charset=latin1',
      'text/plain',
      'text/plain; charset=utf-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/graphql',
      'application/xml',
      '',
      ';;',
      'application/json, text/plain',
    ),
  },
);

/** A value one time in `every` (undefined otherwise). */
export const sometimes = <T>(arbitrary: fc.Arbitrary<T>, every: number): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: every - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });

/** Content-Encoding headers: none mostly, then ones that do not match the (uncompressed) body, or that nothing decodes. */
export const contentEncoding = sometimes(fc.constantFrom('identity', 'gzip', 'deflate', 'br', 'bogus', 'gzip, bogus'), 13);

const deep = (depth: number, open: string, close: string, leaf = '1') => new RawJson(open.repeat(depth) + leaf + close.repeat(depth));

/** The hostile classes of input (issue: strings PostgreSQL cannot store, dates, numbers, structure, prototype keys, wrong types). */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom('\u0000', 'a\u0000b', new RawJson('"\\ud800"'), new RawJson('"x\\udfffy"'), new RawJson('"\\u0000"')),
  fc.constantFrom('2026-02-30', '2026-02-30T10:00:00Z', '0000-01-01', '0000-01-01T00:00:00Z', '9999-12-31T23:59:60Z', '2026-13-01T00:00:00Z', '2026-11-24T25:00:00Z'),
  fc.constantFrom(2147483648, -2147483649, 1e308, -1e308, 1.5, -1, 0, new RawJson('9007199254740993'), new RawJson('1e400'), new RawJson('-1e400')),
  fc.constantFrom(null, true, false, [], {}, '', ' ', [null], [[]]),
  fc.constantFrom(deep(5000, '[', ']'), deep(70, '[', ']'), new RawJson('{"a":'.repeat(300) + '1' + '}'.repeat(300))),
  fc.constantFrom(new RawJson('{"__proto__":{"admin":true}}'), new RawJson('{"constructor":{"prototype":1}}'), { prototype: 1 }),
  fc.constantFrom(...PROTOTYPE_KEYS),
  fc.constantFrom(...PROTOTYPE_KEYS).map((key) => new RawJson(`{${JSON.stringify(key)}:"\\u0000"}`)),
  fc.constantFrom('x'.repeat(110 * 1024), 'é'.repeat(60 * 1024)),
  fc.string({ unit: 'binary', maxLength: 20 }),
);

/** A path into a JSON value: the route to one of its nodes. */
function nodes(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  const here = [path];
  if (value instanceof RawJson) return here;
  if (Array.isArray(value)) return here.concat(...value.map((v, i) => nodes(v, [...path, i])));
  if (value !== null && typeof value === 'object') return here.concat(...Object.entries(value).map(([k, v]) => nodes(v, [...path, k])));
  return here;
}

function replaceAt(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (!path.length) return replacement;
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? replaceAt(v, rest, replacement) : v));
  const copy = { ...(value as Record<string, unknown>) };
  copy[head as string] = replaceAt(copy[head as string], rest, replacement);
  return copy;
}

/** A valid value with one node replaced by a hostile one, or a hostile property added to one of its objects. */
export function mutated(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.tuple(valid, fc.nat(), hostileValue, fc.boolean(), fc.constantFrom(...PROTOTYPE_KEYS, 'unknownField', 'a\u0000', '')).map(([value, pick, hostile, addKey, key]) => {
    const all = nodes(value);
    const path = all[pick % all.length]!;
    if (addKey) {
      const objects = all.filter((p) => {
        let node: unknown = value;
        for (const k of p) node = (node as Record<string | number, unknown>)[k];
        return node !== null && typeof node === 'object' && !Array.isArray(node) && !(node instanceof RawJson);
      });
      if (objects.length) {
        const target = objects[pick % objects.length]!;
        let node: unknown = value;
        for (const k of target) node = (node as Record<string | number, unknown>)[k];
        const text = toJsonText(node);
        const extra = `${JSON.stringify(key)}:${toJsonText(hostile)}`;
        return replaceAt(value, target, new RawJson(text === '{}' ? `{${extra}}` : `{${extra},${text.slice(1)}`));
      }
    }
    return replaceAt(value, path, hostile);
  });
}
