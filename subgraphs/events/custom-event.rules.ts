import { isoEpochSeconds } from '../../platform/validation/index.js';
import type { JsonObject, JsonValue } from './custom-event.schemas.js';

/**
 * The data rules applied when an event is processed (service-spec "Data rules",
 * decisions section 6): what is stored, and the type each property gets in the
 * catalogue that segments use.
 */

export type PropertyType = 'string' | 'number' | 'boolean' | 'date' | 'object' | 'array';

/** Types a segment condition can compare; objects and arrays are stored only. */
export const SEGMENTABLE_TYPES: ReadonlySet<PropertyType> = new Set(['string', 'number', 'boolean', 'date']);

export function propertyType(value: JsonValue): PropertyType {
  if (typeof value === 'string') return isoEpochSeconds(value) !== undefined ? 'date' : 'string';
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
  // Entries, then Object.fromEntries: it defines properties, so no key (not even a prototype's name) is ever dropped.
  const data: [string, JsonValue][] = [];
  const dates: [string, number][] = [];
  const stored: StoredData = { data: {}, dataDates: {}, extra: undefined, properties: [] };
  for (const [key, value] of Object.entries(input ?? {})) {
    if (key === '$extra') {
      stored.extra = value;
      continue;
    }
    if (isUnset(value)) continue;
    data.push([key, value]);
    const type = propertyType(value);
    stored.properties.push({ key, type });
    if (type === 'date') dates.push([key, isoEpochSeconds(value as string)!]);
  }
  stored.data = Object.fromEntries(data);
  stored.dataDates = Object.fromEntries(dates);
  return stored;
}

/** Custom fields that are dates, as epoch seconds (for segment conditions on `customFields.*`). */
export function customFieldDates(fields: Record<string, string | number | boolean>): Record<string, number> {
  const dates: [string, number][] = [];
  for (const [key, value] of Object.entries(fields)) {
    const epoch = typeof value === 'string' ? isoEpochSeconds(value) : undefined;
    if (epoch !== undefined) dates.push([key, epoch]);
  }
  return Object.fromEntries(dates);
}
