/**
 * The one rule for each kind of value the service accepts: dates, date-times,
 * emails, phone numbers, currencies, countries, time zones, decimals and
 * integers. Schemas (schema.ts) name these rules as formats; code that checks
 * a value by hand calls them directly. Nothing else in the code base parses
 * these kinds of values.
 */

/** What an `integer` column holds: every integer field and running total is bounded by it. */
export const INT32_MAX = 2_147_483_647;

/** The instants PostgreSQL and JavaScript both store and print the same way: years 0001 to 9999 (UTC). */
const INSTANT_RANGE = { min: utcMillis(1, 1, 1, 0, 0, 0), max: utcMillis(9999, 12, 31, 23, 59, 59) + 999 };

function utcMillis(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not.
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  return d.getTime();
}

function daysInMonth(year: number, month: number): number {
  return new Date(utcMillis(year, month + 1, 0, 0, 0, 0)).getUTCDate();
}

function validCalendar(year: number, month: number, day: number): boolean {
  return year >= 1 && year <= 9999 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DD`, a real calendar day in years 0001 to 9999. */
export function isCalendarDate(value: string): boolean {
  const m = DATE_RE.exec(value);
  return m !== null && validCalendar(Number(m[1]), Number(m[2]), Number(m[3]));
}

/**
 * ISO 8601 dates and date-times as the service reads them: a date alone
 * (its UTC midnight), or a date and time with an optional fraction and an
 * optional offset (UTC when absent). `T`, `t` or a space separates them.
 */
const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * The same, read as loosely as Laravel's `date` rule reads it (real clients
 * format dates by hand): month, day, hour, minute and second without zero
 * padding, and blanks before the zone (`2026-11-1 0:00:00`, `2023-06-01 00:00:00Z`).
 */
const LOOSE_RE = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt]|\s+)(\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,9}))?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

interface ParsedInstant {
  /** Whole seconds since the epoch, in milliseconds. */
  wholeMillis: number;
  /** The fraction of a second, every digit kept (segments compare dates as float seconds). */
  fraction: number;
}

function parseIso(value: string, pattern = ISO_RE): ParsedInstant | undefined {
  const m = pattern.exec(value);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (!validCalendar(year, month, day)) return undefined;
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  // A leap second (:60) is accepted by RFC 3339 and read as the next second's start.
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  let offsetMinutes = 0;
  const zone = m[8];
  if (zone && zone !== 'Z' && zone !== 'z') {
    const digits = zone.slice(1).replace(':', '');
    const hours = Number(digits.slice(0, 2));
    const minutes = Number(digits.slice(2) || 0);
    if (hours > 23 || minutes > 59) return undefined;
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  const wholeMillis = utcMillis(year, month, day, hour, minute, second) - offsetMinutes * 60_000;
  if (wholeMillis < INSTANT_RANGE.min || wholeMillis > INSTANT_RANGE.max) return undefined;
  return { wholeMillis, fraction: m[7] ? Number(`0.${m[7]}`) : 0 };
}

/** Epoch seconds of an ISO 8601 date or date-time (see ISO_RE), or undefined when it names no real instant. */
export function isoEpochSeconds(value: string): number | undefined {
  const parsed = parseIso(value);
  return parsed && parsed.wholeMillis / 1000 + parsed.fraction;
}

/** A date or date-time as LOOSE_RE reads it: epoch seconds, and whether it names a day alone. */
export function looseInstant(value: string): { epochSeconds: number; dateOnly: boolean } | undefined {
  const text = value.trim();
  const parsed = parseIso(text, LOOSE_RE);
  return parsed && { epochSeconds: parsed.wholeMillis / 1000 + parsed.fraction, dateOnly: LOOSE_RE.exec(text)![4] === undefined };
}

const RFC3339_RE = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 date-time: date, time and an offset (`Z` or `±hh:mm`), calendar-checked, years 0001 to 9999. */
export function isDateTime(value: string): boolean {
  return RFC3339_RE.test(value) && parseIso(value) !== undefined;
}

/** The instant of an RFC 3339 date-time (see isDateTime), to the millisecond. */
export function dateTimeInstant(value: string): Date | undefined {
  if (!RFC3339_RE.test(value)) return undefined;
  const parsed = parseIso(value);
  return parsed && new Date(parsed.wholeMillis + Math.floor(parsed.fraction * 1000));
}

/**
 * A time bound of a list filter: a date (`YYYY-MM-DD`, that day's start in
 * UTC) or an RFC 3339 date-time. Returned as an ISO instant, so the database
 * session's time zone never shifts it.
 */
export function isTimeBound(value: string): boolean {
  return isCalendarDate(value) || isDateTime(value);
}

export function timeBoundInstant(value: string): string | undefined {
  if (isCalendarDate(value)) return `${value}T00:00:00.000Z`;
  return dateTimeInstant(value)?.toISOString();
}

const EMAIL_RE = /^[^\s@"(),:;<>[\\\]]+@[^\s@"(),:;<>[\\\]]+\.[^\s@"(),:;<>[\\\]]+$/;

/** An email address (a pragmatic check: one `@`, a dot in the domain, no spaces or specials), at most 254 characters. */
export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL_RE.test(value);
}

/** E.164 as decisions section 6 states it: `+` then 2 to 15 digits. */
export function isPhoneNumber(value: string): boolean {
  return /^\+\d{2,15}$/.test(value);
}

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/** An ISO 4217 currency code the runtime knows (USD, EUR, JPY, ...). */
export function isCurrency(value: string): boolean {
  return /^[A-Z]{3}$/.test(value) && CURRENCIES.has(value);
}

const REGION_NAMES = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

/** An ISO 3166-1 alpha-2 country code. */
export function isCountryCode(value: string): boolean {
  if (!/^[A-Z]{2}$/.test(value)) return false;
  const name = REGION_NAMES.of(value);
  return name !== undefined && name !== value;
}

/** An IANA time zone name the runtime knows (Europe/Paris, UTC, ...). */
export function isTimeZone(value: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/**
 * Decimal strings ("12.34"): what `numeric(20, 6)` holds, 14 digits before the
 * point and 6 after. Money is always a string, so no binary float ever enters.
 */
const DECIMAL_DIGITS = { integer: 14, fraction: 6 } as const;
const DECIMAL_RE = new RegExp(`^-?\\d{1,${DECIMAL_DIGITS.integer}}(\\.\\d{1,${DECIMAL_DIGITS.fraction}})?$`);

export function isDecimal(value: string): boolean {
  return DECIMAL_RE.test(value);
}

/** A money amount: a non-negative decimal string. */
export function isMoneyAmount(value: string): boolean {
  return isDecimal(value) && !value.startsWith('-');
}

/** Text PostgreSQL can store and compare: no NUL character, no lone UTF-16 surrogate. */
export function textProblem(value: string): string | undefined {
  if (value.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (!value.isWellFormed()) return 'must be well-formed Unicode (it holds a lone surrogate)';
  return undefined;
}

/** UTF-8 length, with a cheap bound first: n UTF-16 units are at most 3n bytes. */
export function utf8Length(value: string, limit: number): number {
  return value.length * 3 <= limit ? value.length : Buffer.byteLength(value, 'utf8');
}
