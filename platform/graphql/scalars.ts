import { GraphQLScalarType, Kind } from 'graphql';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';

/** RFC 3339 timestamps. */
export const DateTimeScalar = DateTimeResolver;

/** Free-form JSON values (event data, custom fields). */
export const JSONScalar = JSONResolver;

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

function parseDate(value: unknown): string {
  if (typeof value !== 'string' || !DATE_RE.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) {
    throw new TypeError('Date must be a calendar date in YYYY-MM-DD form');
  }
  return value;
}

/** Calendar dates as `YYYY-MM-DD` strings, kept as strings so no time zone can shift them. */
export const DateScalar = new GraphQLScalarType<string, string>({
  name: 'Date',
  description: 'A calendar date, YYYY-MM-DD',
  serialize: (value) => (value instanceof Date ? value.toISOString().slice(0, 10) : parseDate(value)),
  parseValue: parseDate,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new TypeError('Date must be a string');
    return parseDate(ast.value);
  },
});
