import { describe, expect, it } from 'vitest';
import { applyDataRules, customFieldDates, propertyType, SEGMENTABLE_TYPES } from '../../subgraphs/events/custom-event.rules.js';
import type { JsonObject } from '../../subgraphs/events/custom-event.schemas.js';

/** The data rules applied when an event is processed (decisions section 6), without a database. */
describe('custom event data rules', () => {
  it('types a property by its value; a string that names a real instant is a date', () => {
    expect(propertyType('hello')).toBe('string');
    expect(propertyType('2026-03-02')).toBe('date');
    expect(propertyType('2026-03-02T10:20:00.5+01:00')).toBe('date');
    // Not a real day, and not ISO 8601: strings.
    expect(propertyType('2026-02-30')).toBe('string');
    expect(propertyType('03/02/2026')).toBe('string');
    expect(propertyType(0)).toBe('number');
    expect(propertyType(-1.5)).toBe('number');
    expect(propertyType(false)).toBe('boolean');
    expect(propertyType([1, 2])).toBe('array');
    expect(propertyType({ a: 1 })).toBe('object');
  });

  it('lets segments compare strings, numbers, booleans and dates only', () => {
    expect([...SEGMENTABLE_TYPES].sort()).toEqual(['boolean', 'date', 'number', 'string']);
  });

  it('drops 0, null and "" at the top level; keeps false, "0" and nested values', () => {
    const stored = applyDataRules({ zero: 0, nothing: null, empty: '', no: false, text: '0', nested: { zero: 0, empty: '' }, list: [0, null, ''] });
    expect(stored.data).toEqual({ no: false, text: '0', nested: { zero: 0, empty: '' }, list: [0, null, ''] });
    expect(stored.properties).toEqual([
      { key: 'no', type: 'boolean' },
      { key: 'text', type: 'string' },
      { key: 'nested', type: 'object' },
      { key: 'list', type: 'array' },
    ]);
  });

  it('keeps $extra verbatim, apart from the data and out of the catalogue', () => {
    const stored = applyDataRules({ total: 10, $extra: { raw: [0, ''], note: null } });
    expect(stored).toEqual({ data: { total: 10 }, dataDates: {}, extra: { raw: [0, ''], note: null }, properties: [{ key: 'total', type: 'number' }] });
    expect(applyDataRules({ $extra: 0 }).extra).toBe(0);
    expect(applyDataRules({ total: 1 }).extra).toBeUndefined();
  });

  it('records the epoch seconds of each date property for typed comparisons', () => {
    const stored = applyDataRules({ shippedAt: '2026-01-05', at: '2026-01-05T00:00:01.25Z', label: 'soon' });
    // 2026-01-05T00:00:00Z is 1767571200 seconds after the epoch; fractions are kept.
    expect(stored.dataDates).toEqual({ shippedAt: 1767571200, at: 1767571201.25 });
    expect(stored.properties.map((p) => p.type)).toEqual(['date', 'date', 'string']);
  });

  it('keeps every key as an own property, prototype names included', () => {
    const input = JSON.parse('{"__proto__": "p", "constructor": 1, "toString": "t"}') as JsonObject;
    const stored = applyDataRules(input);
    expect(Object.keys(stored.data)).toEqual(['__proto__', 'constructor', 'toString']);
    expect(Object.getOwnPropertyDescriptor(stored.data, '__proto__')?.value).toBe('p');
    expect(Object.getPrototypeOf(stored.data)).toBe(Object.prototype);
  });

  it('stores nothing for an event without data', () => {
    expect(applyDataRules(undefined)).toEqual({ data: {}, dataDates: {}, extra: undefined, properties: [] });
  });

  it('takes the dates among custom fields, by their epoch seconds', () => {
    expect(customFieldDates({ joined: '2024-01-15', tier: 'gold', points: 150, vip: true, birthday: '1990-02-30' })).toEqual({ joined: 1705276800 });
  });
});
