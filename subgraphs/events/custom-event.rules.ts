import type { JsonObject, JsonValue } from './custom-event.validation.js';

/**
 * The data rules applied when an event is processed (service-spec "Data rules",
 * decisions section 6): what is stored, and the type each property gets in the
 * catalogue that segments use.
 */

export type PropertyType = 'string' | 'number' | 'boolean' | 'date' | 'object' | 'array';

/** Types a segment condition can compare; objects and arrays are stored only. */
export const SEGMENTABLE_TYPES: ReadonlySet<PropertyType> = new Set(['string', 'number', 'boolean', 'date']);

const ISO_DATE_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * Epoch seconds of a string in ISO 8601 date or date-time form, or undefined
 * when it is not one (or names no real instant, such as February 30th).
 * A date-time without an offset is read as UTC; a date alone is its UTC midnight.
 */
export function isoDateEpoch(value: string): number | undefined {
  const m = ISO_DATE_RE.exec(value);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  const zone = m[8];
  if (zone && zone !== 'Z' && zone !== 'z') {
    const digits = zone.slice(1).replace(':', '');
    const hours = Number(digits.slice(0, 2));
    const minutes = Number(digits.slice(2) || 0);
    if (hours > 23 || minutes > 59) return undefined;
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  const fraction = m[7] ? Number(`0.${m[7]}`) : 0;
  return Date.UTC(year, month - 1, day, hour, minute, second) / 1000 + fraction - offsetMinutes * 60;
}

export function propertyType(value: JsonValue): PropertyType {
  if (typeof value === 'string') return isoDateEpoch(value) !== undefined ? 'date' : 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  return Array.isArray(value) ? 'array' : 'object';
}

export interface StoredData {
  /** Top-level properties kept after dropping `0`, `null` and `""` (`$extra` excluded). */
  data: JsonObject;
  /** Date-typed properties of `data` as epoch seconds, for typed comparisons. */
  dataDates: Record<string, number>;
  /** `$extra`, verbatim. */
  extra: JsonValue | undefined;
  /** The catalogue entries this event contributes. */
  properties: { key: string; type: PropertyType }[];
}

/** `0`, `null` and `""` at the top level mean "unset"; `false`, `"0"` and nested values are kept. */
function isUnset(value: JsonValue): boolean {
  return value === null || value === 0 || value === '';
}

export function applyDataRules(input: JsonObject | undefined): StoredData {
  const stored: StoredData = { data: {}, dataDates: {}, extra: undefined, properties: [] };
  for (const [key, value] of Object.entries(input ?? {})) {
    if (key === '$extra') {
      stored.extra = value;
      continue;
    }
    if (isUnset(value)) continue;
    stored.data[key] = value;
    const type = propertyType(value);
    stored.properties.push({ key, type });
    if (type === 'date') stored.dataDates[key] = isoDateEpoch(value as string)!;
  }
  return stored;
}

/** Custom fields that are dates, as epoch seconds (for segment conditions on `customFields.*`). */
export function customFieldDates(fields: Record<string, string | number | boolean>): Record<string, number> {
  const dates: Record<string, number> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value !== 'string') continue;
    const epoch = isoDateEpoch(value);
    if (epoch !== undefined) dates[key] = epoch;
  }
  return dates;
}
