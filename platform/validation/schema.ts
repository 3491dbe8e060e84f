import { Type, type Static, type TSchema, type TString, type TInteger, type TNumber, type ObjectOptions, type TProperties, type TObject } from '@sinclair/typebox';

/**
 * Building blocks for the JSON Schemas that describe every input of the
 * service (REST bodies and query strings, GraphQL JSON inputs). A schema is
 * plain JSON Schema (TypeBox builds it and infers its TypeScript type), so the
 * same definition validates requests (validate.ts) and documents the API.
 *
 * Formats name the rules of rules.ts; `detail` overrides the message of a
 * violation of that schema; the keywords of validate.ts add what JSON Schema
 * lacks (`maxBytes`, `requireAnyOf`, `uniqueItemsBy`).
 */
export { Type, type Static, type TSchema };

export interface Annotations {
  description?: string;
  /** The message of any violation of this schema (instead of the generic one). */
  detail?: string;
  examples?: unknown[];
}

/** A string of `min..max` characters (1..255 by default), not only white space when required to be non-empty. */
export function Text(options: Annotations & { min?: number; max?: number } = {}): TString {
  const { min = 1, max = 255, ...rest } = options;
  return Type.String({ minLength: min, maxLength: max, ...(min > 0 ? { pattern: '\\S' } : {}), ...rest });
}

export const Email = (a: Annotations = {}) => Type.String({ format: 'email', maxLength: 254, ...a });
export const Phone = (a: Annotations = {}) => Type.String({ format: 'phone', ...a });
export const Currency = (a: Annotations = {}) => Type.String({ format: 'currency', ...a });
export const CountryCode = (a: Annotations = {}) => Type.String({ format: 'country-code', ...a });
export const TimeZone = (a: Annotations = {}) => Type.String({ format: 'time-zone', ...a });
export const DateTime = (a: Annotations = {}) => Type.String({ format: 'date-time', ...a });
export const CalendarDate = (a: Annotations = {}) => Type.String({ format: 'date', ...a });
/** A list filter's time bound: a date (UTC midnight) or a date-time. */
export const TimeBound = (a: Annotations = {}) => Type.String({ format: 'time-bound', ...a });
/** A non-negative decimal string. */
export const Amount = (a: Annotations = {}) => Type.String({ format: 'money-amount', ...a });
/** A money value as response documents show it (the amount keeps its scale: "120.50"). */
export const MoneyDocument = Type.Object(
  { amount: Type.String({ format: 'decimal', description: 'A decimal string such as "12.34".' }), currency: Type.String({ description: 'ISO 4217 code.' }) },
  { additionalProperties: false, title: 'Money' },
);
export const Money = (a: Annotations = {}) => Type.Object({ amount: Amount(), currency: Currency() }, { additionalProperties: false, ...a });

/** An integer an `integer` column holds, within `min..max`. */
export function Int(options: Annotations & { min?: number; max?: number } = {}): TInteger {
  const { min = -2_147_483_648, max = 2_147_483_647, ...rest } = options;
  return Type.Integer({ minimum: min, maximum: max, ...rest });
}

/** A finite number within bounds. */
export function Num(options: Annotations & { min?: number; max?: number } = {}): TNumber {
  const { min, max, ...rest } = options;
  return Type.Number({ ...(min !== undefined ? { minimum: min } : {}), ...(max !== undefined ? { maximum: max } : {}), ...rest });
}

/** One of fixed string values. */
export function OneOf<const T extends readonly string[]>(values: T, a: Annotations = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...a });
}

/** An object that accepts only the listed properties. */
export function Strict<T extends TProperties>(properties: T, options: ObjectOptions & Annotations = {}): TObject<T> {
  return Type.Object(properties, { additionalProperties: false, ...options });
}

/**
 * An optional property that may also be sent as `null` (read as absent).
 * The type keyword widens to `[type, "null"]`, so every other keyword still
 * applies to the non-null value.
 */
export function Nullable<T extends TSchema>(schema: T) {
  const type = (schema as { type?: string | string[] }).type;
  if (typeof type !== 'string') throw new Error('Nullable() takes a schema with one type');
  return Type.Optional(Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'] }));
}

/**
 * A value that is always present but may be `null` (response documents; inputs
 * use Nullable, which also makes the property optional).
 */
export function OrNull<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/** Any JSON value (free-form objects: `$extra`, custom fields). */
export const AnyJson = (a: Annotations = {}) => Type.Unknown(a);
