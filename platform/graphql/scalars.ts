import { GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { JSONResolver } from 'graphql-scalars';
import { dateTimeInstant, isCalendarDate } from '../validation/index.js';

/**
 * The custom scalars every subgraph and the gateway share, each parsed by the
 * one rule of its kind (platform/validation/rules.ts): a value the database
 * would refuse or change never gets past GraphQL's own input coercion.
 */

function parseDateTime(value: unknown): Date {
  const instant = typeof value === 'string' ? dateTimeInstant(value) : undefined;
  if (!instant) throw new TypeError('DateTime must be an RFC 3339 date-time with an offset, a real calendar date in years 0001 to 9999 (e.g. 2026-11-22T10:00:00Z)');
  return instant;
}

/** RFC 3339 timestamps, calendar-checked, with an offset; served in UTC. */
export const DateTimeScalar = new GraphQLScalarType<Date, string>({
  name: 'DateTime',
  description: 'An RFC 3339 date-time with an offset, e.g. 2026-11-22T10:00:00Z',
  serialize: (value) => (value instanceof Date ? value : parseDateTime(value)).toISOString(),
  parseValue: parseDateTime,
  parseLiteral: (ast: ValueNode) => {
    if (ast.kind !== Kind.STRING) throw new TypeError('DateTime must be a string');
    return parseDateTime(ast.value);
  },
});

function parseDate(value: unknown): string {
  if (typeof value !== 'string' || !isCalendarDate(value)) throw new TypeError('Date must be a calendar date in YYYY-MM-DD form, years 0001 to 9999');
  return value;
}

/** Calendar dates as `YYYY-MM-DD` strings, kept as strings so no time zone can shift them. */
export const DateScalar = new GraphQLScalarType<string, string>({
  name: 'Date',
  description: 'A calendar date, YYYY-MM-DD',
  serialize: (value) => (value instanceof Date ? value.toISOString().slice(0, 10) : parseDate(value)),
  parseValue: parseDate,
  parseLiteral: (ast: ValueNode) => {
    if (ast.kind !== Kind.STRING) throw new TypeError('Date must be a string');
    return parseDate(ast.value);
  },
});

/** Free-form JSON values (event data, custom fields, REST bodies passed through). */
export const JSONScalar = JSONResolver;

/** The implementation of each custom scalar by name, for schemas built from SDL alone (the gateway's). */
export const CUSTOM_SCALARS: Record<string, GraphQLScalarType> = { DateTime: DateTimeScalar, Date: DateScalar, JSON: JSONScalar };
