import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { Static, TSchema } from '@sinclair/typebox';
import { invalid, type FieldError } from '../errors.js';
import { pointerSegment } from './json-hygiene.js';
import { isCalendarDate, isCountryCode, isCurrency, isDateTime, isDecimal, isEmail, isMoneyAmount, isPhoneNumber, isTimeBound, isTimeZone, utf8Length } from './rules.js';

/**
 * Compiles the service's JSON Schemas (schema.ts) with Ajv and turns its
 * errors into the service's field errors: one `{pointer, detail}` per
 * violation, every violation at once, pointers into the input (RFC 6901).
 */

const FORMATS: Record<string, { test: (value: string) => boolean; detail: string }> = {
  'date-time': { test: isDateTime, detail: 'must be an RFC 3339 date-time with an offset (e.g. 2026-11-22T10:00:00Z)' },
  date: { test: isCalendarDate, detail: 'must be a calendar date (YYYY-MM-DD)' },
  'time-bound': { test: isTimeBound, detail: 'must be a date (YYYY-MM-DD) or an RFC 3339 date-time with an offset' },
  email: { test: isEmail, detail: 'must be a valid email address' },
  phone: { test: isPhoneNumber, detail: 'must be an E.164 phone number (+ then 2 to 15 digits)' },
  currency: { test: isCurrency, detail: 'must be an ISO 4217 currency code (e.g. USD)' },
  'country-code': { test: isCountryCode, detail: 'must be an ISO 3166-1 alpha-2 country code' },
  'time-zone': { test: isTimeZone, detail: 'must be an IANA time zone name' },
  decimal: { test: isDecimal, detail: 'must be a decimal string such as "12.34" (at most 14 digits before the point and 6 after)' },
  'money-amount': { test: isMoneyAmount, detail: 'must be a non-negative decimal string such as "12.34" (at most 14 digits before the point and 6 after)' },
};

/** The service's formats on an Ajv instance (this module's, and any that checks the service's published schemas). */
export function addServiceFormats(target: Ajv): Ajv {
  for (const [name, format] of Object.entries(FORMATS)) target.addFormat(name, { type: 'string', validate: format.test });
  return target;
}

const ajv = addServiceFormats(new Ajv({ allErrors: true, verbose: true, strict: true, allowUnionTypes: true, ownProperties: true }));
// Annotations: documentation, and the message a schema gives its violations.
ajv.addKeyword({ keyword: 'detail', schemaType: 'string' });
ajv.addKeyword({
  keyword: 'maxBytes',
  type: 'string',
  schemaType: 'number',
  validate: (limit: number, data: string) => utf8Length(data, limit) <= limit,
});
ajv.addKeyword({
  keyword: 'requireAnyOf',
  type: 'object',
  schemaType: 'array',
  validate: (names: string[], data: Record<string, unknown>) => names.some((n) => Object.hasOwn(data, n) && data[n] !== null),
});
/** Array elements whose `key` repeats an earlier element's: reported at the repeating element. */
ajv.addKeyword({
  keyword: 'uniqueItemsBy',
  type: 'array',
  schemaType: 'string',
  validate: function uniqueBy(key: string, data: unknown[], _parent?: unknown, ctx?: { instancePath: string }) {
    const seen = new Map<unknown, number>();
    const errors: Partial<ErrorObject>[] = [];
    data.forEach((item, index) => {
      const value = item !== null && typeof item === 'object' ? (item as Record<string, unknown>)[key] : undefined;
      if (value === undefined || value === null) return;
      const first = seen.get(value);
      if (first === undefined) seen.set(value, index);
      else errors.push({ instancePath: `${ctx?.instancePath ?? ''}/${index}/${pointerSegment(key)}`, keyword: 'uniqueItemsBy', message: `repeats the ${key} of element ${first}`, params: { first } });
    });
    (uniqueBy as { errors?: Partial<ErrorObject>[] }).errors = errors;
    return errors.length === 0;
  },
});

const compiled = new WeakMap<TSchema, ValidateFunction>();

function compile(schema: TSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

const TYPE_NAMES: Record<string, string> = { string: 'a string', integer: 'an integer', number: 'a number', boolean: 'a boolean', object: 'an object', array: 'an array', null: 'null' };

function typeDetail(type: unknown): string {
  const types = (Array.isArray(type) ? type : [type]).filter((t) => t !== 'null');
  return `must be ${types.map((t) => TYPE_NAMES[String(t)] ?? String(t)).join(' or ')}`;
}

function detailOf(error: ErrorObject): string {
  const schemaDetail = (error.parentSchema as { detail?: string } | undefined)?.detail;
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known property';
    case 'type':
      return schemaDetail ?? typeDetail(p.type);
    case 'format':
      return schemaDetail ?? FORMATS[String(p.format)]?.detail ?? 'is not valid';
    case 'minLength':
      return schemaDetail ?? (p.limit === 1 ? 'must not be empty' : `must be at least ${String(p.limit)} characters`);
    case 'maxLength':
      return schemaDetail ?? `must be at most ${String(p.limit)} characters`;
    case 'pattern':
      // Text() requires a non-space character: say so in words.
      return schemaDetail ?? (p.pattern === '\\S' ? 'must not be empty' : 'is not in the expected form');
    case 'minimum':
      return schemaDetail ?? `must be at least ${String(p.limit)}`;
    case 'maximum':
      return schemaDetail ?? `must be at most ${String(p.limit)}`;
    case 'exclusiveMinimum':
      return schemaDetail ?? `must be greater than ${String(p.limit)}`;
    case 'minItems':
      return schemaDetail ?? `must have at least ${String(p.limit)} element${p.limit === 1 ? '' : 's'}`;
    case 'maxItems':
      return schemaDetail ?? `must have at most ${String(p.limit)} elements`;
    case 'maxProperties':
      return schemaDetail ?? `must have at most ${String(p.limit)} properties`;
    case 'minProperties':
      return schemaDetail ?? `must have at least ${String(p.limit)} properties`;
    case 'enum':
      return schemaDetail ?? `must be one of ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'const':
      return schemaDetail ?? `must be ${JSON.stringify(p.allowedValue)}`;
    case 'propertyNames':
      return schemaDetail ?? 'has an invalid property name';
    case 'maxBytes':
      return schemaDetail ?? `must be at most ${Math.round(Number(error.schema) / 1024)} KB`;
    case 'requireAnyOf':
      return schemaDetail ?? `needs at least one of ${(error.schema as string[]).join(', ')}`;
    default:
      return schemaDetail ?? error.message ?? 'is not valid';
  }
}

function pointerOf(error: ErrorObject, prefix: string): string {
  const p = error.params as Record<string, unknown>;
  if (error.keyword === 'required') return `${prefix}${error.instancePath}/${pointerSegment(String(p.missingProperty))}`;
  if (error.keyword === 'additionalProperties') return `${prefix}${error.instancePath}/${pointerSegment(String(p.additionalProperty))}`;
  if (error.keyword === 'propertyNames') return `${prefix}${error.instancePath}/${pointerSegment(String(p.propertyName))}`;
  return `${prefix}${error.instancePath}`;
}

/**
 * Ajv's errors as field errors. An `anyOf`/`oneOf` that failed is reported
 * once, by its own `detail`, instead of once per branch; a property name that
 * failed is reported once, not again by the keyword inside `propertyNames`.
 */
function fieldErrors(errors: readonly ErrorObject[], prefix = ''): FieldError[] {
  const combinators = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'propertyNames').map((e) => `${e.schemaPath}/`);
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (combinators.some((path) => error.schemaPath.startsWith(path))) continue;
    const field = { pointer: pointerOf(error, prefix), detail: detailOf(error) };
    const key = `${field.pointer}\u0000${field.detail}`;
    if (!seen.has(key)) out.push(field);
    seen.add(key);
  }
  return out;
}

/** Field errors of `value` against `schema` (empty when it conforms); `prefix` is where the value sits. */
export function violationsOf(schema: TSchema, value: unknown, prefix = ''): FieldError[] {
  const validate = compile(schema);
  return validate(value) ? [] : fieldErrors(validate.errors ?? [], prefix);
}

/** `value` typed by its schema, or a 400 `validation-failed` listing every violation. */
export function check<T extends TSchema>(schema: T, value: unknown, options: { prefix?: string; detail?: string } = {}): Static<T> {
  const errors = violationsOf(schema, value, options.prefix);
  if (errors.length) throw invalid('validation-failed', options.detail ?? 'The request is invalid.', errors);
  return value as Static<T>;
}
