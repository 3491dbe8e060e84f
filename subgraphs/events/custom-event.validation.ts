import type { FieldError } from '../../platform/errors.js';

/**
 * The rules of a custom event request (service-spec "Custom event request",
 * decisions section 6), shared by the REST routes and the GraphQL mutations:
 * both send the raw body here, so they accept and refuse exactly the same input.
 * Every violation is reported, each with a JSON pointer into the body.
 */

export const EVENT_LIMITS = {
  dataProperties: 400,
  /** 100 KB, counted in UTF-8 bytes. */
  stringBytes: 100 * 1024,
  /** The whole body; checked by the HTTP layer (413). */
  bodyBytes: 5 * 1024 * 1024,
  uniqueIdMax: 255,
  bulkMax: 100,
} as const;

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export interface EventLocation {
  street1?: string;
  street2?: string;
  city?: string;
  state?: string;
  stateCode?: string;
  postalCode?: string;
  country?: string;
  countryCode?: string;
  ianaTimeZoneName?: string;
  latitude?: number;
  longitude?: number;
}

export interface EventCustomer {
  id?: string;
  email?: string;
  phoneNumber?: string;
  firstName?: string;
  lastName?: string;
  location?: EventLocation;
  customFields?: Record<string, string | number | boolean>;
}

/** A request that passed validation: only the fields the service uses. */
export interface ValidEvent {
  eventName: string;
  customer: EventCustomer;
  data?: JsonObject;
  eventTimestamp?: string;
  value?: number;
  valueCurrency?: string;
  uniqueId?: string;
}

export type Validation<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

const CUSTOMER_KEYS = new Set(['id', 'email', 'phoneNumber', 'firstName', 'lastName', 'location', 'customFields']);
const LOCATION_STRINGS = ['street1', 'street2', 'city', 'state', 'stateCode', 'postalCode', 'country', 'countryCode', 'ianaTimeZoneName'] as const;
const LOCATION_KEYS = new Set<string>([...LOCATION_STRINGS, 'latitude', 'longitude']);

const EMAIL_RE = /^[^\s@"(),:;<>[\\\]]+@[^\s@"(),:;<>[\\\]]+\.[^\s@"(),:;<>[\\\]]+$/;
/** E.164 as decisions section 6 states it: `+` then 2 to 15 digits. */
const PHONE_RE = /^\+\d{2,15}$/;
const RFC3339_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;
const ZONE_SHAPE_RE = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));
const REGION_NAMES = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

/** JSON pointer segment escaping (RFC 6901). */
export function pointerSegment(key: string | number): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** A strict RFC 3339 date-time (offset required), with a real calendar date and time. */
export function isRfc3339DateTime(value: string): boolean {
  const m = RFC3339_RE.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false;
  if (hour > 23 || minute > 59 || second > 60) return false;
  if (m[9] !== undefined && (Number(m[9]) > 23 || Number(m[10]) > 59)) return false;
  return true;
}

export function isIsoCountryCode(value: string): boolean {
  if (!/^[A-Z]{2}$/.test(value)) return false;
  const name = REGION_NAMES.of(value);
  return name !== undefined && name !== value;
}

export function isIanaTimeZone(value: string): boolean {
  if (!ZONE_SHAPE_RE.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

export function isCurrencyCode(value: string): boolean {
  return /^[A-Z]{3}$/.test(value) && CURRENCIES.has(value);
}

function utf8Bytes(value: string): number {
  // Cheap bound first: a string of n UTF-16 units has at most 3n UTF-8 bytes.
  return value.length * 3 <= EVENT_LIMITS.stringBytes ? value.length : Buffer.byteLength(value, 'utf8');
}

/** Every string (keys included) over 100 KB, anywhere in the value. */
function oversizedStrings(value: unknown, pointer: string, errors: FieldError[]): void {
  if (typeof value === 'string') {
    if (utf8Bytes(value) > EVENT_LIMITS.stringBytes) errors.push({ pointer, detail: 'must be at most 100 KB' });
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => oversizedStrings(item, `${pointer}/${i}`, errors));
  } else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      const child = `${pointer}/${pointerSegment(key)}`;
      if (utf8Bytes(key) > EVENT_LIMITS.stringBytes) errors.push({ pointer: child, detail: 'property name must be at most 100 KB' });
      oversizedStrings(item, child, errors);
    }
  }
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

function validateLocation(value: unknown, at: string, errors: FieldError[]): EventLocation | undefined {
  if (!isPlainObject(value)) {
    errors.push({ pointer: at, detail: 'must be an object' });
    return undefined;
  }
  const location: EventLocation = {};
  for (const [key, item] of Object.entries(value)) {
    const pointer = `${at}/${pointerSegment(key)}`;
    if (!LOCATION_KEYS.has(key)) {
      errors.push({ pointer, detail: 'is not an allowed location property' });
    } else if (key === 'latitude' || key === 'longitude') {
      const max = key === 'latitude' ? 90 : 180;
      if (typeof item !== 'number' || !Number.isFinite(item) || Math.abs(item) > max) errors.push({ pointer, detail: `must be a number from -${max} to ${max}` });
      else location[key] = item;
    } else if (typeof item !== 'string') {
      errors.push({ pointer, detail: 'must be a string' });
    } else if (key === 'countryCode' && !isIsoCountryCode(item)) {
      errors.push({ pointer, detail: 'must be an ISO 3166-1 alpha-2 country code' });
    } else if (key === 'ianaTimeZoneName' && !isIanaTimeZone(item)) {
      errors.push({ pointer, detail: 'must be an IANA time zone name' });
    } else {
      location[key as (typeof LOCATION_STRINGS)[number]] = item;
    }
  }
  return location;
}

function validateCustomer(value: unknown, at: string, errors: FieldError[]): EventCustomer | undefined {
  if (value === undefined) {
    errors.push({ pointer: at, detail: 'is required' });
    return undefined;
  }
  if (!isPlainObject(value)) {
    errors.push({ pointer: at, detail: 'must be an object' });
    return undefined;
  }
  const customer: EventCustomer = {};
  for (const key of Object.keys(value)) {
    if (!CUSTOMER_KEYS.has(key)) errors.push({ pointer: `${at}/${pointerSegment(key)}`, detail: 'is not an allowed customer property' });
  }
  const { id, email, phoneNumber, firstName, lastName, location, customFields } = value;
  if (id !== undefined) {
    if (nonEmptyString(id)) customer.id = id;
    else errors.push({ pointer: `${at}/id`, detail: 'must be a non-empty string' });
  }
  if (email !== undefined) {
    if (typeof email === 'string' && email.length <= 254 && EMAIL_RE.test(email)) customer.email = email;
    else errors.push({ pointer: `${at}/email`, detail: 'must be a valid email address' });
  }
  if (phoneNumber !== undefined) {
    if (typeof phoneNumber === 'string' && PHONE_RE.test(phoneNumber)) customer.phoneNumber = phoneNumber;
    else errors.push({ pointer: `${at}/phoneNumber`, detail: 'must be an E.164 phone number (+ then 2 to 15 digits)' });
  }
  if (id === undefined && email === undefined && phoneNumber === undefined) {
    errors.push({ pointer: at, detail: 'needs at least one of id, email, phoneNumber' });
  }
  for (const [key, item] of [['firstName', firstName], ['lastName', lastName]] as const) {
    if (item === undefined) continue;
    if (typeof item === 'string') customer[key] = item;
    else errors.push({ pointer: `${at}/${key}`, detail: 'must be a string' });
  }
  if (location !== undefined) customer.location = validateLocation(location, `${at}/location`, errors);
  if (customFields !== undefined) {
    if (!isPlainObject(customFields)) {
      errors.push({ pointer: `${at}/customFields`, detail: 'must be an object' });
    } else {
      const fields: Record<string, string | number | boolean> = {};
      for (const [key, item] of Object.entries(customFields)) {
        const pointer = `${at}/customFields/${pointerSegment(key)}`;
        if (key.length === 0) errors.push({ pointer, detail: 'property name must not be empty' });
        else if (typeof item === 'string' || typeof item === 'boolean' || (typeof item === 'number' && Number.isFinite(item))) fields[key] = item;
        else errors.push({ pointer, detail: 'must be a string, number or boolean' });
      }
      customer.customFields = fields;
    }
  }
  return customer;
}

/** Validates one custom event request; `at` prefixes every pointer (bulk items: `/events/3`). */
export function validateEvent(body: unknown, at = ''): Validation<ValidEvent> {
  const errors: FieldError[] = [];
  if (!isPlainObject(body)) return { ok: false, errors: [{ pointer: at || '/', detail: 'must be a JSON object' }] };
  oversizedStrings(body, at, errors);

  const { eventName, customer, data, eventTimestamp, value, valueCurrency, uniqueId } = body;
  if (!nonEmptyString(eventName)) errors.push({ pointer: `${at}/eventName`, detail: eventName === undefined ? 'is required' : 'must be a non-empty string' });
  const validCustomer = validateCustomer(customer, `${at}/customer`, errors);

  if (data !== undefined) {
    if (!isPlainObject(data)) errors.push({ pointer: `${at}/data`, detail: 'must be an object' });
    else if (Object.keys(data).length > EVENT_LIMITS.dataProperties) {
      errors.push({ pointer: `${at}/data`, detail: `must have at most ${EVENT_LIMITS.dataProperties} properties` });
    } else {
      for (const key of Object.keys(data)) {
        if (key.length === 0) errors.push({ pointer: `${at}/data/`, detail: 'property name must not be empty' });
      }
    }
  }
  if (eventTimestamp !== undefined && !(typeof eventTimestamp === 'string' && isRfc3339DateTime(eventTimestamp))) {
    errors.push({ pointer: `${at}/eventTimestamp`, detail: 'must be an RFC 3339 date-time (e.g. 2026-11-22T10:00:00Z)' });
  }
  if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value))) {
    errors.push({ pointer: `${at}/value`, detail: 'must be a finite number' });
  }
  if (valueCurrency !== undefined && !(typeof valueCurrency === 'string' && isCurrencyCode(valueCurrency))) {
    errors.push({ pointer: `${at}/valueCurrency`, detail: 'must be an ISO 4217 currency code' });
  }
  if (uniqueId !== undefined) {
    const length = typeof uniqueId === 'string' ? [...uniqueId].length : -1;
    if (length < 1 || length > EVENT_LIMITS.uniqueIdMax) errors.push({ pointer: `${at}/uniqueId`, detail: `must be a string of 1 to ${EVENT_LIMITS.uniqueIdMax} characters` });
  }

  if (errors.length || !validCustomer) return { ok: false, errors };
  return {
    ok: true,
    value: {
      eventName: eventName as string,
      customer: validCustomer,
      ...(data !== undefined ? { data: data as JsonObject } : {}),
      ...(eventTimestamp !== undefined ? { eventTimestamp: eventTimestamp as string } : {}),
      ...(value !== undefined ? { value: value as number } : {}),
      ...(valueCurrency !== undefined ? { valueCurrency: valueCurrency as string } : {}),
      ...(uniqueId !== undefined ? { uniqueId: uniqueId as string } : {}),
    },
  };
}

/** The bulk body `{events: [...]}` (1 to 100); each event is then validated alone. */
export function validateBulkEnvelope(body: unknown): Validation<unknown[]> {
  if (!isPlainObject(body)) return { ok: false, errors: [{ pointer: '/', detail: 'must be a JSON object' }] };
  const { events } = body;
  if (!Array.isArray(events)) return { ok: false, errors: [{ pointer: '/events', detail: events === undefined ? 'is required' : 'must be an array' }] };
  if (events.length < 1 || events.length > EVENT_LIMITS.bulkMax) {
    return { ok: false, errors: [{ pointer: '/events', detail: `must hold 1 to ${EVENT_LIMITS.bulkMax} events` }] };
  }
  return { ok: true, value: events };
}
