import { CONSENT_CHANNELS, CONSENT_KINDS, CONSENT_STATUSES } from '../customers/consent.rules.js';
import { invalid, type FieldError } from '../../../platform/errors.js';
import { Conditions } from '../../../platform/db/keyset.js';
import { isoEpochSeconds } from '../../../platform/validation/index.js';
import { RETURN_STATUSES } from '../../returns/public.js';
import { SegmentOperator } from './segment.input.js';

const RETURN_STATUS_NAMES: ReadonlySet<string> = new Set(RETURN_STATUSES);

/**
 * Compiles a segment definition to one SQL predicate over `customer c`,
 * evaluated entirely in PostgreSQL. Event conditions become
 * `c.id in (select customer_id ... group by customer_id having count(*) ...)`
 * over the (store, event name, timestamp) index; property values compare by
 * type: numbers as numbers, dates through the epoch seconds recorded at
 * processing (`data_dates`, `custom_field_dates`), strings as strings. A value
 * that is not set matches only IS_NOT_SET.
 */

export interface PropertyCondition {
  key: string;
  operator: SegmentOperator;
  value?: unknown;
}

export interface EventCondition {
  eventName: string;
  minCount?: number | null;
  maxCount?: number | null;
  since?: Date | string | null;
  until?: Date | string | null;
  withinLastDays?: number | null;
  where?: PropertyCondition[] | null;
}

interface ProfileCondition {
  field: string;
  operator: SegmentOperator;
  value?: unknown;
}

interface ReturnHistoryCondition {
  minCount?: number | null;
  withinLastDays?: number | null;
  status?: string[] | null;
  reason?: string[] | null;
}

interface ReturnRateCondition {
  greaterThan: number;
}

/** Customers whose consent on a channel and kind is one of `statuses` (never_subscribed: nothing recorded). */
interface ConsentCondition {
  channel: string;
  kind?: string | null;
  statuses: string[];
}

export interface SegmentCondition {
  event?: EventCondition | null;
  profile?: ProfileCondition | null;
  consent?: ConsentCondition | null;
  returns?: ReturnHistoryCondition | null;
  returnRate?: ReturnRateCondition | null;
}

export interface SegmentDefinition {
  all?: SegmentCondition[] | null;
  any?: SegmentCondition[] | null;
}

/** How one property is read: its JSON value, its date (epoch seconds) when it has one, whether it is set. */
interface Accessor {
  json: string;
  date: string | null;
  isSet: string;
  /** Email compares case-insensitively, like identity resolution. */
  caseInsensitive?: boolean;
}

const PROFILE_COLUMNS: Record<string, Accessor> = {
  email: { json: 'to_jsonb(c.email)', date: null, isSet: 'c.email is not null', caseInsensitive: true },
  phoneNumber: { json: 'to_jsonb(c.phone_number)', date: null, isSet: 'c.phone_number is not null' },
  firstName: { json: 'to_jsonb(c.first_name)', date: null, isSet: 'c.first_name is not null' },
  lastName: { json: 'to_jsonb(c.last_name)', date: null, isSet: 'c.last_name is not null' },
  createdAt: { json: 'null::jsonb', date: 'extract(epoch from c.created_at)::float8', isSet: 'true' },
  updatedAt: { json: 'null::jsonb', date: 'extract(epoch from c.updated_at)::float8', isSet: 'true' },
};
const LOCATION_FIELDS = new Set(['street1', 'street2', 'city', 'state', 'stateCode', 'postalCode', 'country', 'countryCode', 'ianaTimeZoneName', 'latitude', 'longitude']);

/** The platform's WHERE builder, collecting every invalid part of the definition as it goes. */
class Builder extends Conditions {
  readonly errors: FieldError[] = [];
  /** In a flow, the alias of the triggering event's row: `event.<key>` profile fields read its `data`. */
  triggerEvent: string | undefined;

  param(value: unknown, cast: string): string {
    return this.p(value, cast);
  }

  fail(pointer: string, detail: string): string {
    this.errors.push({ pointer, detail });
    return 'false';
  }
}

function dateValue(b: Builder, value: unknown, at: string): number | undefined {
  if (value instanceof Date) return value.getTime() / 1000;
  const epoch = typeof value === 'string' ? isoEpochSeconds(value) : undefined;
  if (epoch === undefined) b.fail(`${at}/value`, 'must be an ISO 8601 date or date-time');
  return epoch;
}

/** One comparison of a property against a value, typed by the operator and the value. */
function compare(b: Builder, a: Accessor, operator: SegmentOperator, value: unknown, at: string): string {
  const isNumber = typeof value === 'number' && Number.isFinite(value);
  const isDateString = typeof value === 'string' && isoEpochSeconds(value) !== undefined;
  switch (operator) {
    case SegmentOperator.IS_SET:
      return `(${a.isSet})`;
    case SegmentOperator.IS_NOT_SET:
      return `not (${a.isSet})`;
    case SegmentOperator.EQUALS:
    case SegmentOperator.NOT_EQUALS: {
      if (!(typeof value === 'string' || typeof value === 'boolean' || isNumber)) return b.fail(`${at}/value`, 'must be a string, number or boolean');
      let equal: string;
      if (a.caseInsensitive && typeof value === 'string') equal = `lower(${a.json} #>> '{}') = lower(${b.param(value, 'text')})`;
      else equal = `${a.json} = ${b.param(JSON.stringify(value), 'jsonb')}`;
      // A date matches the same instant written another way (2026-01-01 and 2026-01-01T00:00:00Z).
      if (isDateString && a.date) equal = `(${equal} or ${a.date} = ${b.param(isoEpochSeconds(value as string), 'float8')})`;
      return operator === SegmentOperator.EQUALS ? `coalesce(${equal}, false)` : `(${a.isSet} and not coalesce(${equal}, false))`;
    }
    case SegmentOperator.CONTAINS:
      if (typeof value !== 'string' || !value) return b.fail(`${at}/value`, 'must be a non-empty string');
      return `(jsonb_typeof(${a.json}) = 'string' and strpos(lower(${a.json} #>> '{}'), lower(${b.param(value, 'text')})) > 0)`;
    case SegmentOperator.GREATER_THAN:
    case SegmentOperator.LESS_THAN: {
      const op = operator === SegmentOperator.GREATER_THAN ? '>' : '<';
      if (isNumber) return `(case when jsonb_typeof(${a.json}) = 'number' then (${a.json})::numeric end ${op} ${b.param(value, 'numeric')})`;
      if (isDateString) {
        if (!a.date) return b.fail(`${at}/value`, 'this field holds no dates');
        return `(${a.date} ${op} ${b.param(isoEpochSeconds(value as string), 'float8')})`;
      }
      return b.fail(`${at}/value`, 'must be a number or an ISO 8601 date');
    }
    case SegmentOperator.BEFORE:
    case SegmentOperator.AFTER: {
      if (!a.date) return b.fail(`${at}/operator`, 'this field holds no dates');
      const epoch = dateValue(b, value, at);
      if (epoch === undefined) return 'false';
      return `(${a.date} ${operator === SegmentOperator.BEFORE ? '<' : '>'} ${b.param(epoch, 'float8')})`;
    }
    case SegmentOperator.WITHIN_LAST_DAYS: {
      if (!a.date) return b.fail(`${at}/operator`, 'this field holds no dates');
      if (!(typeof value === 'number' && Number.isInteger(value) && value > 0)) return b.fail(`${at}/value`, 'must be a positive integer (days)');
      const now = 'extract(epoch from now())::float8';
      return `(${a.date} >= ${now} - ${b.param(value, 'float8')} * 86400 and ${a.date} <= ${now})`;
    }
    default:
      return b.fail(`${at}/operator`, `unknown operator ${String(operator)}`);
  }
}

function profileAccessor(b: Builder, field: string, at: string): Accessor | undefined {
  if (Object.hasOwn(PROFILE_COLUMNS, field)) return PROFILE_COLUMNS[field];
  const [head, ...rest] = field.split('.');
  const key = rest.join('.');
  if (head === 'location' && LOCATION_FIELDS.has(key)) {
    const k = b.param(key, 'text');
    return { json: `(c.location -> ${k})`, date: null, isSet: `(jsonb_typeof(c.location -> ${k}) is not null and jsonb_typeof(c.location -> ${k}) <> 'null')` };
  }
  if (head === 'customFields' && key) {
    const k = b.param(key, 'text');
    return { json: `(c.custom_fields -> ${k})`, date: `(c.custom_field_dates ->> ${k})::float8`, isSet: `coalesce(c.custom_fields ? ${k}, false)` };
  }
  if (head === 'event' && key && b.triggerEvent) {
    const k = b.param(key, 'text');
    const te = b.triggerEvent;
    const scalar = `coalesce(jsonb_typeof(${te}.data -> ${k}) in ('string', 'number', 'boolean'), false)`;
    return { json: `(case when ${scalar} then ${te}.data -> ${k} end)`, date: `(${te}.data_dates ->> ${k})::float8`, isSet: `(${scalar})` };
  }
  const eventFields = b.triggerEvent ? ', event.<key>' : '';
  b.fail(`${at}/field`, `must be email, phoneNumber, firstName, lastName, createdAt, updatedAt, location.<field>, customFields.<key>${eventFields}`);
  return undefined;
}

function timeBound(b: Builder, value: Date | string, at: string): string | undefined {
  const epoch = dateValue(b, value, at.replace(/\/value$/, ''));
  return epoch === undefined ? undefined : b.param(new Date(epoch * 1000).toISOString(), 'timestamptz');
}

/** One `where` condition on the properties of the event row `alias` (a segment's counted events, a flow's trigger). */
function propertyPredicate(b: Builder, p: PropertyCondition, alias: string, pat: string): string | undefined {
  if (typeof p.key !== 'string' || !p.key) {
    b.fail(`${pat}/key`, 'must be a non-empty string');
    return undefined;
  }
  const k = b.param(p.key, 'text');
  // Objects and arrays are stored but never segmentable (decisions section 14): for a condition they are not set.
  const scalar = `coalesce(jsonb_typeof(${alias}.data -> ${k}) in ('string', 'number', 'boolean'), false)`;
  const accessor: Accessor = { json: `(case when ${scalar} then ${alias}.data -> ${k} end)`, date: `(${alias}.data_dates ->> ${k})::float8`, isSet: `(${scalar})` };
  if (p.operator === SegmentOperator.EQUALS && (typeof p.value === 'string' || typeof p.value === 'boolean' || typeof p.value === 'number')) {
    // Containment uses the GIN index on data; a date string also matches the same instant written differently.
    const contains = `${alias}.data @> jsonb_build_object(${k}, ${b.param(JSON.stringify(p.value), 'jsonb')})`;
    const sameDate = typeof p.value === 'string' && isoEpochSeconds(p.value) !== undefined ? ` or ${accessor.date} = ${b.param(isoEpochSeconds(p.value), 'float8')}` : '';
    return `(${contains}${sameDate})`;
  }
  return compare(b, accessor, p.operator, p.value, pat);
}

function eventPredicate(b: Builder, e: EventCondition, at: string): string {
  if (typeof e.eventName !== 'string' || !e.eventName) return b.fail(`${at}/eventName`, 'must be a non-empty string');
  const min = e.minCount ?? 1;
  const max = e.maxCount ?? undefined;
  if (!Number.isInteger(min) || min < 0) b.fail(`${at}/minCount`, 'must be an integer >= 0');
  if (max !== undefined && (!Number.isInteger(max) || max < min)) b.fail(`${at}/maxCount`, 'must be an integer >= minCount');
  const filters = [`e.store_id = $1::text`, `e.event_name = ${b.param(e.eventName, 'text')}`];
  if (e.since) filters.push(`e.event_timestamp >= ${timeBound(b, e.since, `${at}/since/value`) ?? 'null'}`);
  if (e.until) filters.push(`e.event_timestamp < ${timeBound(b, e.until, `${at}/until/value`) ?? 'null'}`);
  if (e.withinLastDays !== undefined && e.withinLastDays !== null) {
    if (!Number.isInteger(e.withinLastDays) || e.withinLastDays <= 0) b.fail(`${at}/withinLastDays`, 'must be a positive integer');
    else filters.push(`e.event_timestamp >= now() - ${b.param(e.withinLastDays, 'int')} * interval '1 day'`);
  }
  (e.where ?? []).forEach((p, i) => {
    const filter = propertyPredicate(b, p, 'e', `${at}/where/${i}`);
    if (filter) filters.push(filter);
  });
  const counted = `select e.customer_id from custom_event e where ${filters.join(' and ')} group by e.customer_id`;
  if (min >= 1) {
    const having = [`count(*) >= ${b.param(min, 'int')}`, ...(max !== undefined ? [`count(*) <= ${b.param(max, 'int')}`] : [])];
    return `c.id in (${counted} having ${having.join(' and ')})`;
  }
  // minCount 0: everyone except those above maxCount (customers who never performed it included).
  // Without maxCount that is everyone; the subquery stays in the text, folded away by the planner,
  // because its parameters are already allocated and PostgreSQL must see each one to type it.
  if (max === undefined) return `(true or c.id in (${counted}))`;
  return `c.id not in (${counted} having count(*) > ${b.param(max, 'int')})`;
}

function consentPredicate(b: Builder, c: ConsentCondition, at: string): string {
  const kind = c.kind ?? 'marketing';
  let ok = true;
  if (!(CONSENT_CHANNELS as readonly string[]).includes(c.channel)) ok = !b.fail(`${at}/channel`, `must be one of ${CONSENT_CHANNELS.join(', ')}`);
  if (!(CONSENT_KINDS as readonly string[]).includes(kind)) ok = !b.fail(`${at}/kind`, `must be one of ${CONSENT_KINDS.join(', ')}`);
  if (!Array.isArray(c.statuses) || !c.statuses.length || c.statuses.some((s) => !(CONSENT_STATUSES as readonly string[]).includes(s))) {
    ok = !b.fail(`${at}/statuses`, `give one or more of ${CONSENT_STATUSES.join(', ')}`);
  }
  if (!ok) return 'false';
  return `coalesce((select k.status from customer_consent k where k.customer_id = c.id and k.channel = ${b.param(c.channel, 'text')} and k.kind = ${b.param(kind, 'text')}), 'never_subscribed') = any(${b.param(c.statuses, 'text[]')})`;
}

/**
 * The customer's rows of `table` (customer_return, customer_order: kept from the returns
 * subgraph's events): those of orders with the customer's email (lower case) or phone, each
 * through its partial index.
 */
function customerRows(table: string, alias: string, extra: string): string {
  return `(select ${alias}.* from ${table} ${alias} where ${alias}.store_id = $1::text and ${alias}.email = lower(c.email)${extra}
    union all select ${alias}.* from ${table} ${alias} where ${alias}.store_id = $1::text and ${alias}.phone = c.phone_number and ${alias}.email is distinct from lower(c.email)${extra})`;
}

const NOT_COUNTED = ['rejected', 'deleted'];

function returnsPredicate(b: Builder, r: ReturnHistoryCondition, at: string): string {
  const min = r.minCount ?? 1;
  if (!Number.isInteger(min) || min < 0) b.fail(`${at}/minCount`, 'must be an integer >= 0');
  const filters: string[] = [];
  if (r.withinLastDays !== undefined && r.withinLastDays !== null) {
    if (!Number.isInteger(r.withinLastDays) || r.withinLastDays <= 0) b.fail(`${at}/withinLastDays`, 'must be a positive integer');
    else filters.push(`r.created_at >= now() - ${b.param(r.withinLastDays, 'int')} * interval '1 day'`);
  }
  if (r.status?.length) {
    const unknown = r.status.find((s) => !RETURN_STATUS_NAMES.has(s));
    if (unknown !== undefined) b.fail(`${at}/status`, `must be return statuses (${[...RETURN_STATUS_NAMES].join(', ')})`);
    filters.push(`r.status = any(${b.param(r.status, 'text[]')})`);
  } else filters.push(`r.status <> 'deleted'`);
  if (r.reason?.length) filters.push(`r.reasons && ${b.param(r.reason, 'text[]')}`);
  const extra = filters.map((f) => ` and ${f}`).join('');
  return `(select count(*) from ${customerRows('customer_return', 'r', extra)} r) >= ${b.param(min, 'int')}`;
}

function returnRatePredicate(b: Builder, r: ReturnRateCondition, at: string): string {
  if (typeof r.greaterThan !== 'number' || !Number.isFinite(r.greaterThan) || r.greaterThan < 0) return b.fail(`${at}/greaterThan`, 'must be a number >= 0 (a fraction: 0.4 is 40 %)');
  const returned = `(select coalesce(sum(r.units), 0) from ${customerRows('customer_return', 'r', ` and r.status <> all(${b.param(NOT_COUNTED, 'text[]')})`)} r)`;
  const ordered = `(select sum(o.units) from ${customerRows('customer_order', 'o', '')} o)`;
  // No orders: no rate (null), which is above nothing.
  return `coalesce(${returned}::numeric / nullif(${ordered}, 0) > ${b.param(r.greaterThan, 'numeric')}, false)`;
}

function conditionPredicate(b: Builder, condition: SegmentCondition, at: string): string {
  const { event, profile, consent, returns, returnRate } = condition;
  if ((event ? 1 : 0) + (profile ? 1 : 0) + (consent ? 1 : 0) + (returns ? 1 : 0) + (returnRate ? 1 : 0) !== 1) return b.fail(at, 'give exactly one of event, profile, consent, returns or returnRate');
  if (event) return eventPredicate(b, event, `${at}/event`);
  if (consent) return consentPredicate(b, consent, `${at}/consent`);
  if (returns) return returnsPredicate(b, returns, `${at}/returns`);
  if (returnRate) return returnRatePredicate(b, returnRate, `${at}/returnRate`);
  const accessor = profileAccessor(b, profile!.field, `${at}/profile`);
  return accessor ? compare(b, accessor, profile!.operator, profile!.value, `${at}/profile`) : 'false';
}

export interface CompiledSegment {
  /** A predicate over `customer c`; parameter 1 is the store id. */
  where: string;
  params: unknown[];
}

/**
 * Compiles a definition; the store id becomes parameter 1 (the event
 * subqueries stay within the store, uncorrelated). Throws a 400 listing every
 * invalid part, pointers relative to `pointer`.
 */
export function compileSegment(storeId: string, definition: SegmentDefinition, pointer = '/definition'): CompiledSegment {
  const compiler = new SegmentCompiler(storeId);
  const where = compiler.definition(definition, pointer);
  compiler.check('The segment definition is invalid.');
  return { where, params: compiler.params };
}

/** A definition as stored (JSON): dates as ISO strings, absent parts dropped. */
export function definitionJson(definition: SegmentDefinition): SegmentDefinition {
  return JSON.parse(JSON.stringify(definition)) as SegmentDefinition;
}

/**
 * Several predicates sharing one parameter list ($1 is the store id), for the
 * flows: a trigger's `where` over the event row, an audience over `customer c`,
 * a flow condition over `customer c` where `event.<key>` reads the triggering
 * event's row. Every invalid part is collected; `check()` throws them as one 400.
 */
export class SegmentCompiler {
  private readonly b = new Builder();

  constructor(storeId: string, options: { triggerEvent?: string } = {}) {
    this.b.param(storeId, 'text');
    this.b.triggerEvent = options.triggerEvent;
  }

  get params(): unknown[] {
    return this.b.params;
  }

  param(value: unknown, cast: string): string {
    return this.b.param(value, cast);
  }

  /** Every `where` condition on the event row `alias`, ANDed. */
  eventProperties(where: PropertyCondition[], alias: string, pointer: string): string {
    const parts = where.map((p, i) => propertyPredicate(this.b, p, alias, `${pointer}/${i}`) ?? 'false');
    return parts.length ? parts.map((p) => `(${p})`).join(' and ') : 'true';
  }

  /** A segment definition over `customer c`. */
  definition(definition: SegmentDefinition, pointer: string): string {
    const all = definition.all ?? [];
    const any = definition.any ?? [];
    if (!all.length && !any.length) this.b.fail(pointer, 'give at least one condition in all or any');
    const parts = all.map((c, i) => `(${conditionPredicate(this.b, c, `${pointer}/all/${i}`)})`);
    if (any.length) parts.push(`(${any.map((c, i) => `(${conditionPredicate(this.b, c, `${pointer}/any/${i}`)})`).join(' or ')})`);
    return parts.join(' and ') || 'false';
  }

  /** One condition over `customer c`. */
  condition(condition: SegmentCondition, pointer: string): string {
    return conditionPredicate(this.b, condition, pointer);
  }

  /** The collected problems, without throwing (validation that adds its own). */
  get errors(): FieldError[] {
    return this.b.errors;
  }

  check(detail = 'The definition is invalid.'): void {
    if (this.b.errors.length) throw invalid('validation-failed', detail, this.b.errors);
  }
}
