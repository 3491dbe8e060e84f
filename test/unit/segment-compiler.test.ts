import { describe, expect, it } from 'vitest';
import { AppError } from '../../platform/errors.js';
import { SegmentOperator as Op } from '../../subgraphs/events/segments/segment.input.js';
import { compileSegment, SegmentCompiler, type EventCondition, type SegmentCondition, type SegmentDefinition } from '../../subgraphs/events/segments/segment.rules.js';

/**
 * The segment compiler alone: definitions to SQL text and parameters, no
 * database. What the SQL selects is checked against real rows by
 * test/events-segments.test.ts and the flow tests; here, the text each
 * operator makes, the numbering of parameters, and every rule it enforces.
 */

const STORE = 'sto_unit';

interface Compiled {
  sql: string;
  /** The parameters after $1 (the store id). */
  params: unknown[];
  errors: { pointer: string; detail: string }[];
}

function compiled(compile: (c: SegmentCompiler) => string, options: { triggerEvent?: string } = {}): Compiled {
  const compiler = new SegmentCompiler(STORE, options);
  const sql = compile(compiler);
  expect(compiler.params[0]).toBe(STORE);
  return { sql, params: compiler.params.slice(1), errors: compiler.errors };
}

const condition = (c: SegmentCondition, options: { triggerEvent?: string } = {}) => compiled((compiler) => compiler.condition(c, '/c'), options);
const profile = (field: string, operator: Op | string, value?: unknown) => condition({ profile: { field, operator: operator as Op, value } });
const event = (e: EventCondition) => condition({ event: e });
const definition = (d: SegmentDefinition) => compiled((compiler) => compiler.definition(d, '/definition'));

/** The placeholders a text uses, as numbers. */
const placeholders = (sql: string) => new Set([...sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));

describe('profile conditions, by operator', () => {
  it('EQUALS compares JSON values (a string, a number, a boolean), email case-insensitively', () => {
    expect(profile('firstName', Op.EQUALS, 'Ann')).toEqual({ sql: 'coalesce(to_jsonb(c.first_name) = $2::jsonb, false)', params: ['"Ann"'], errors: [] });
    expect(profile('email', Op.EQUALS, 'Ann@Example.com')).toEqual({ sql: `coalesce(lower(to_jsonb(c.email) #>> '{}') = lower($2::text), false)`, params: ['Ann@Example.com'], errors: [] });
    expect(profile('customFields.points', Op.EQUALS, 150)).toMatchObject({ sql: 'coalesce((c.custom_fields -> $2::text) = $3::jsonb, false)', params: ['points', '150'] });
    expect(profile('customFields.vip', Op.EQUALS, true)).toMatchObject({ params: ['vip', 'true'], errors: [] });
  });

  it('EQUALS with a date also matches the same instant written another way, where the field holds dates', () => {
    // 2024-01-15T00:00:00Z is 1705276800 seconds after the epoch.
    expect(profile('customFields.joined', Op.EQUALS, '2024-01-15')).toEqual({
      sql: 'coalesce(((c.custom_fields -> $2::text) = $3::jsonb or (c.custom_field_dates ->> $2::text)::float8 = $4::float8), false)',
      params: ['joined', '"2024-01-15"', 1705276800],
      errors: [],
    });
    // A field without dates compares the text only.
    expect(profile('firstName', Op.EQUALS, '2024-01-15').sql).toBe('coalesce(to_jsonb(c.first_name) = $2::jsonb, false)');
  });

  it('NOT_EQUALS matches a set value that differs, never an unset one', () => {
    expect(profile('firstName', Op.NOT_EQUALS, 'Ann').sql).toBe('(c.first_name is not null and not coalesce(to_jsonb(c.first_name) = $2::jsonb, false))');
  });

  it('EQUALS and NOT_EQUALS refuse objects, arrays, null and non-finite numbers', () => {
    for (const value of [{ a: 1 }, [1], null, undefined, Number.NaN, Number.POSITIVE_INFINITY]) {
      for (const operator of [Op.EQUALS, Op.NOT_EQUALS]) {
        expect(profile('firstName', operator, value), JSON.stringify(value)).toEqual({ sql: 'false', params: [], errors: [{ pointer: '/c/profile/value', detail: 'must be a string, number or boolean' }] });
      }
    }
  });

  it('CONTAINS is a case-insensitive substring of a string value; it needs a non-empty string', () => {
    expect(profile('location.city', Op.CONTAINS, 'par')).toEqual({
      sql: `(jsonb_typeof((c.location -> $2::text)) = 'string' and strpos(lower((c.location -> $2::text) #>> '{}'), lower($3::text)) > 0)`,
      params: ['city', 'par'],
      errors: [],
    });
    for (const value of ['', 5, null]) expect(profile('firstName', Op.CONTAINS, value).errors).toEqual([{ pointer: '/c/profile/value', detail: 'must be a non-empty string' }]);
  });

  it('GREATER_THAN and LESS_THAN compare numbers as numbers and dates as instants', () => {
    const points = '(c.custom_fields -> $2::text)';
    expect(profile('customFields.points', Op.GREATER_THAN, 100)).toEqual({
      sql: `(case when jsonb_typeof(${points}) = 'number' then (${points})::numeric end > $3::numeric)`,
      params: ['points', 100],
      errors: [],
    });
    expect(profile('customFields.points', Op.LESS_THAN, 100).sql).toContain('end < $3::numeric');
    // 2026-01-01T00:00:00Z is 1767225600 seconds after the epoch.
    expect(profile('createdAt', Op.GREATER_THAN, '2026-01-01')).toEqual({ sql: '(extract(epoch from c.created_at)::float8 > $2::float8)', params: [1767225600], errors: [] });
    expect(profile('updatedAt', Op.LESS_THAN, '2026-01-01T01:00:00+01:00')).toEqual({ sql: '(extract(epoch from c.updated_at)::float8 < $2::float8)', params: [1767225600], errors: [] });
  });

  it('GREATER_THAN and LESS_THAN refuse other values, and dates where the field holds none', () => {
    expect(profile('firstName', Op.GREATER_THAN, '2026-01-01').errors).toEqual([{ pointer: '/c/profile/value', detail: 'this field holds no dates' }]);
    for (const value of ['ten', true, null, Number.NaN]) {
      expect(profile('customFields.points', Op.LESS_THAN, value).errors).toEqual([{ pointer: '/c/profile/value', detail: 'must be a number or an ISO 8601 date' }]);
    }
  });

  it('BEFORE and AFTER compare instants (a Date or an ISO 8601 text), on fields that hold dates only', () => {
    expect(profile('createdAt', Op.BEFORE, '2026-01-01')).toEqual({ sql: '(extract(epoch from c.created_at)::float8 < $2::float8)', params: [1767225600], errors: [] });
    expect(profile('customFields.joined', Op.AFTER, new Date('2026-01-01T00:00:00Z'))).toEqual({
      sql: '((c.custom_field_dates ->> $2::text)::float8 > $3::float8)',
      params: ['joined', 1767225600],
      errors: [],
    });
    expect(profile('email', Op.BEFORE, '2026-01-01').errors).toEqual([{ pointer: '/c/profile/operator', detail: 'this field holds no dates' }]);
    for (const value of ['soon', '2026-02-30', 1767225600, null]) {
      expect(profile('createdAt', Op.AFTER, value).errors, String(value)).toEqual([{ pointer: '/c/profile/value', detail: 'must be an ISO 8601 date or date-time' }]);
    }
  });

  it('WITHIN_LAST_DAYS takes a positive whole number of days, up to now', () => {
    const at = 'extract(epoch from c.updated_at)::float8';
    const now = 'extract(epoch from now())::float8';
    expect(profile('updatedAt', Op.WITHIN_LAST_DAYS, 7)).toEqual({ sql: `(${at} >= ${now} - $2::float8 * 86400 and ${at} <= ${now})`, params: [7], errors: [] });
    for (const value of [0, -1, 1.5, '7', null]) {
      expect(profile('updatedAt', Op.WITHIN_LAST_DAYS, value).errors, String(value)).toEqual([{ pointer: '/c/profile/value', detail: 'must be a positive integer (days)' }]);
    }
    expect(profile('phoneNumber', Op.WITHIN_LAST_DAYS, 7).errors).toEqual([{ pointer: '/c/profile/operator', detail: 'this field holds no dates' }]);
  });

  it('IS_SET and IS_NOT_SET take no parameter', () => {
    expect(profile('phoneNumber', Op.IS_SET)).toEqual({ sql: '(c.phone_number is not null)', params: [], errors: [] });
    expect(profile('phoneNumber', Op.IS_NOT_SET)).toEqual({ sql: 'not (c.phone_number is not null)', params: [], errors: [] });
    // Creation and update times are always set.
    expect(profile('createdAt', Op.IS_NOT_SET).sql).toBe('not (true)');
    expect(profile('customFields.tier', Op.IS_SET)).toEqual({ sql: '(coalesce(c.custom_fields ? $2::text, false))', params: ['tier'], errors: [] });
  });

  it('refuses an operator it does not know', () => {
    expect(profile('firstName', 'LIKE', 'A%')).toEqual({ sql: 'false', params: [], errors: [{ pointer: '/c/profile/operator', detail: 'unknown operator LIKE' }] });
  });
});

describe('profile fields', () => {
  const FIELDS = 'must be email, phoneNumber, firstName, lastName, createdAt, updatedAt, location.<field>, customFields.<key>';

  it('reads location fields and custom fields by a parameter, never by splicing the name', () => {
    const hostile = `tier') or true --`;
    const { sql, params } = profile(`customFields.${hostile}`, Op.EQUALS, 'gold');
    expect(sql).not.toContain(hostile);
    expect(params).toEqual([hostile, '"gold"']);
    expect(profile('location.countryCode', Op.EQUALS, 'GB').params).toEqual(['countryCode', '"GB"']);
  });

  it('refuses unknown fields, location fields it does not keep, an empty custom field key and inherited names', () => {
    for (const field of ['nickname', 'location.planet', 'location', 'customFields', 'customFields.', '__proto__', 'toString', 'event.total']) {
      expect(profile(field, Op.IS_SET), field).toEqual({ sql: 'false', params: [], errors: [{ pointer: '/c/profile/field', detail: FIELDS }] });
    }
  });

  it('in a flow, event.<key> reads the triggering event row (its scalar values and dates)', () => {
    const flow = condition({ profile: { field: 'event.total', operator: Op.GREATER_THAN, value: 5 } }, { triggerEvent: 'te' });
    const value = `(case when coalesce(jsonb_typeof(te.data -> $2::text) in ('string', 'number', 'boolean'), false) then te.data -> $2::text end)`;
    expect(flow).toEqual({ sql: `(case when jsonb_typeof(${value}) = 'number' then (${value})::numeric end > $3::numeric)`, params: ['total', 5], errors: [] });
    expect(condition({ profile: { field: 'event.placedAt', operator: Op.BEFORE, value: '2026-01-01' } }, { triggerEvent: 'te' }).sql).toBe('((te.data_dates ->> $2::text)::float8 < $3::float8)');
    expect(condition({ profile: { field: 'nickname', operator: Op.IS_SET } }, { triggerEvent: 'te' }).errors).toEqual([{ pointer: '/c/profile/field', detail: `${FIELDS}, event.<key>` }]);
  });
});

describe('event conditions', () => {
  const counted = (filters: string) => `select e.customer_id from custom_event e where e.store_id = $1::text and e.event_name = $2::text${filters} group by e.customer_id`;

  it('counts the store’s events of the name per customer: at least once by default', () => {
    expect(event({ eventName: 'Ordered' })).toEqual({ sql: `c.id in (${counted('')} having count(*) >= $3::int)`, params: ['Ordered', 1], errors: [] });
    expect(event({ eventName: 'Ordered', minCount: 2, maxCount: 3 })).toMatchObject({ sql: `c.id in (${counted('')} having count(*) >= $3::int and count(*) <= $4::int)`, params: ['Ordered', 2, 3] });
  });

  it('minCount 0 takes in customers who never did it: everyone but those above maxCount', () => {
    expect(event({ eventName: 'Ordered', minCount: 0, maxCount: 2 })).toEqual({ sql: `c.id not in (${counted('')} having count(*) > $3::int)`, params: ['Ordered', 2], errors: [] });
    // Without maxCount: everyone. The subquery keeps the name's parameter in the text (PostgreSQL types every
    // parameter it is sent) and is folded away by the planner.
    expect(event({ eventName: 'Ordered', minCount: 0 })).toEqual({ sql: `(true or c.id in (${counted('')}))`, params: ['Ordered'], errors: [] });
  });

  it('narrows the counted events by time window and by their properties, in the order given', () => {
    const { sql, params, errors } = event({
      eventName: 'Ordered',
      since: '2026-01-01',
      until: new Date('2026-02-01T00:00:00Z'),
      withinLastDays: 30,
      where: [{ key: 'coupon', operator: Op.EQUALS, value: 'SUMMER' }, { key: 'shippedAt', operator: Op.EQUALS, value: '2026-01-05' }],
    });
    expect(errors).toEqual([]);
    expect(sql).toBe(
      `c.id in (${counted(
        ` and e.event_timestamp >= $3::timestamptz and e.event_timestamp < $4::timestamptz and e.event_timestamp >= now() - $5::int * interval '1 day'` +
          ` and (e.data @> jsonb_build_object($6::text, $7::jsonb)) and (e.data @> jsonb_build_object($8::text, $9::jsonb) or (e.data_dates ->> $8::text)::float8 = $10::float8)`,
      )} having count(*) >= $11::int)`,
    );
    // Dates as instants in UTC; an EQUALS on a property is a containment (the GIN index), a date also by its instant.
    expect(params).toEqual(['Ordered', '2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z', 30, 'coupon', '"SUMMER"', 'shippedAt', '"2026-01-05"', 1767571200, 1]);
  });

  it('compares other operators on a property through its scalar value: objects and arrays are never set', () => {
    const { sql } = event({ eventName: 'Ordered', where: [{ key: 'items', operator: Op.IS_SET }] });
    expect(sql).toContain(`and ((coalesce(jsonb_typeof(e.data -> $3::text) in ('string', 'number', 'boolean'), false))) group by`);
  });

  it('enforces its limits: a name, whole counts with maxCount >= minCount, a positive window, dates, property keys', () => {
    const errors = (e: Partial<EventCondition>) => event({ eventName: 'Ordered', ...e } as EventCondition).errors;
    expect(event({ eventName: '' })).toEqual({ sql: 'false', params: [], errors: [{ pointer: '/c/event/eventName', detail: 'must be a non-empty string' }] });
    for (const minCount of [-1, 1.5]) expect(errors({ minCount })).toContainEqual({ pointer: '/c/event/minCount', detail: 'must be an integer >= 0' });
    for (const maxCount of [1, 2.5]) expect(errors({ minCount: 2, maxCount })).toContainEqual({ pointer: '/c/event/maxCount', detail: 'must be an integer >= minCount' });
    for (const withinLastDays of [0, -3, 0.5]) expect(errors({ withinLastDays })).toEqual([{ pointer: '/c/event/withinLastDays', detail: 'must be a positive integer' }]);
    expect(errors({ since: 'yesterday', until: '2026-13-01' })).toEqual([
      { pointer: '/c/event/since/value', detail: 'must be an ISO 8601 date or date-time' },
      { pointer: '/c/event/until/value', detail: 'must be an ISO 8601 date or date-time' },
    ]);
    expect(errors({ where: [{ key: '', operator: Op.IS_SET }, { key: 'total', operator: Op.CONTAINS, value: '' }] })).toEqual([
      { pointer: '/c/event/where/0/key', detail: 'must be a non-empty string' },
      { pointer: '/c/event/where/1/value', detail: 'must be a non-empty string' },
    ]);
  });
});

describe('definitions: nesting and parameter numbering', () => {
  const set = (field: string): SegmentCondition => ({ profile: { field, operator: Op.IS_SET } });

  it('ANDs every condition of all, and ORs those of any as one more term', () => {
    expect(definition({ all: [set('email'), set('phoneNumber')], any: [set('firstName'), set('lastName')] }).sql).toBe(
      '((c.email is not null)) and ((c.phone_number is not null)) and (((c.first_name is not null)) or ((c.last_name is not null)))',
    );
    expect(definition({ any: [set('email'), set('phoneNumber')] }).sql).toBe('(((c.email is not null)) or ((c.phone_number is not null)))');
    expect(definition({ all: [set('email')], any: null }).sql).toBe('((c.email is not null))');
  });

  it('numbers parameters in the order the conditions are read, all before any, every one used, the store id first', () => {
    const { sql, params } = definition({
      all: [{ profile: { field: 'firstName', operator: Op.EQUALS, value: 'Ann' } }, { event: { eventName: 'Ordered', minCount: 2 } }],
      any: [{ profile: { field: 'customFields.tier', operator: Op.EQUALS, value: 'gold' } }, { profile: { field: 'location.city', operator: Op.CONTAINS, value: 'par' } }],
    });
    expect(params).toEqual(['"Ann"', 'Ordered', 2, 'tier', '"gold"', 'city', 'par']);
    expect(placeholders(sql)).toEqual(new Set([1, 2, 3, 4, 5, 6, 7, 8]));
    expect(sql.indexOf('$2::jsonb')).toBeLessThan(sql.indexOf('$3::text'));
    expect(sql.indexOf('$7::text')).toBeLessThan(sql.indexOf('$8::text'));
  });

  it('keeps numbering across the parts of one compiler (a flow’s trigger, audience and conditions share one list)', () => {
    const { sql, params } = compiled(
      (c) =>
        [
          c.eventProperties([{ key: 'total', operator: Op.GREATER_THAN, value: 10 }], 'te', '/trigger/where'),
          c.definition({ all: [{ profile: { field: 'firstName', operator: Op.EQUALS, value: 'Ann' } }] }, '/audience'),
          c.condition({ profile: { field: 'event.total', operator: Op.LESS_THAN, value: 99 } }, '/steps/0/condition/if'),
        ].join(' | '),
      { triggerEvent: 'te' },
    );
    expect(params).toEqual(['total', 10, '"Ann"', 'total', 99]);
    expect(placeholders(sql)).toEqual(new Set([2, 3, 4, 5, 6]));
  });

  it('ANDs a trigger’s property conditions, and has none mean any event', () => {
    expect(compiled((c) => c.eventProperties([], 'te', '/w')).sql).toBe('true');
    const { sql } = compiled((c) => c.eventProperties([{ key: 'a', operator: Op.IS_SET }, { key: 'b', operator: Op.IS_NOT_SET }], 'te', '/w'));
    expect(sql).toBe(
      `(((coalesce(jsonb_typeof(te.data -> $2::text) in ('string', 'number', 'boolean'), false)))) and (not ((coalesce(jsonb_typeof(te.data -> $3::text) in ('string', 'number', 'boolean'), false))))`,
    );
  });

  it('needs at least one condition, and exactly one of event, profile, consent, returns or returnRate in each', () => {
    expect(definition({})).toEqual({ sql: 'false', params: [], errors: [{ pointer: '/definition', detail: 'give at least one condition in all or any' }] });
    expect(definition({ all: [], any: [] }).errors).toEqual([{ pointer: '/definition', detail: 'give at least one condition in all or any' }]);
    const both = { event: { eventName: 'Ordered' }, profile: { field: 'email', operator: Op.IS_SET } };
    expect(definition({ all: [{}], any: [set('email'), both] }).errors).toEqual([
      { pointer: '/definition/all/0', detail: 'give exactly one of event, profile, consent, returns or returnRate' },
      { pointer: '/definition/any/1', detail: 'give exactly one of event, profile, consent, returns or returnRate' },
    ]);
  });
});

describe('compileSegment', () => {
  it('returns the predicate and its parameters, the store id first', () => {
    expect(compileSegment(STORE, { all: [{ profile: { field: 'email', operator: Op.IS_SET } }] })).toEqual({ where: '((c.email is not null))', params: [STORE] });
  });

  it('throws one 400 listing every invalid part, under the pointer it is given', () => {
    let thrown: unknown;
    try {
      compileSegment(STORE, { all: [{ event: { eventName: '', minCount: -1 } }, { profile: { field: 'createdAt', operator: Op.AFTER, value: 'later' } }] }, '/input/definition');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect(thrown).toMatchObject({
      type: 'invalid_data',
      slug: 'validation-failed',
      message: 'The segment definition is invalid.',
      errors: [
        { pointer: '/input/definition/all/0/event/eventName', detail: 'must be a non-empty string' },
        { pointer: '/input/definition/all/1/profile/value', detail: 'must be an ISO 8601 date or date-time' },
      ],
    });
  });
});
