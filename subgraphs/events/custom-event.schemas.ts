import type { FieldError } from '../../platform/errors.js';
import { CountryCode, Currency, DateTime, Email, inspectJson, Int, Num, OneOf, Phone, Strict, Text, TimeZone, Type, violationsOf, type Static } from '../../platform/validation/index.js';

/**
 * The rules of a custom event request (service-spec "Custom event request",
 * decisions sections 6 and 14), shared by the REST routes and the GraphQL
 * mutations: both send the raw body here, so they accept and refuse exactly
 * the same input. Every violation is reported, each with a JSON pointer.
 */

export const EVENT_LIMITS = {
  dataProperties: 400,
  /** 100 KB, counted in UTF-8 bytes, for any string (or property name) anywhere in the body. */
  stringBytes: 100 * 1024,
  /** The whole body; checked by the HTTP layer (413). */
  bodyBytes: 5 * 1024 * 1024,
  uniqueIdMax: 255,
  /** Event names and data keys are indexed (the property catalogue's key): they must fit a B-tree entry. */
  nameMax: 255,
  bulkMax: 100,
} as const;

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export const LocationSchema = Strict({
  street1: Type.Optional(Type.String()),
  street2: Type.Optional(Type.String()),
  city: Type.Optional(Type.String()),
  state: Type.Optional(Type.String({ description: 'Name' })),
  stateCode: Type.Optional(Type.String({ description: 'Abbreviation' })),
  postalCode: Type.Optional(Type.String()),
  country: Type.Optional(Type.String({ description: 'Name' })),
  countryCode: Type.Optional(CountryCode()),
  ianaTimeZoneName: Type.Optional(TimeZone()),
  latitude: Type.Optional(Num({ min: -90, max: 90 })),
  longitude: Type.Optional(Num({ min: -180, max: 180 })),
});

const CustomerSchema = Strict(
  {
    id: Type.Optional(Text({ max: EVENT_LIMITS.nameMax, description: 'Service customer id: highest priority for identity resolution.' })),
    email: Type.Optional(Email()),
    phoneNumber: Type.Optional(Phone()),
    firstName: Type.Optional(Type.String({ description: 'Patch semantics: an omitted value keeps the stored one.' })),
    lastName: Type.Optional(Type.String()),
    location: Type.Optional(LocationSchema),
    customFields: Type.Optional(
      Type.Unsafe<Record<string, string | number | boolean>>({
        type: 'object',
        propertyNames: { minLength: 1, maxLength: EVENT_LIMITS.nameMax },
        additionalProperties: { type: ['string', 'number', 'boolean'] },
        description: 'Merchant-defined; each value a string, number or boolean (ISO 8601 strings are typed as dates).',
      }),
    ),
  },
  { requireAnyOf: ['id', 'email', 'phoneNumber'] },
);

/** The custom event request; additional top-level properties are accepted (and ignored). */
export const CustomEventSchema = Type.Object({
  eventName: Text({ max: EVENT_LIMITS.nameMax }),
  customer: CustomerSchema,
  data: Type.Optional(
    Type.Unsafe<JsonObject>({
      type: 'object',
      maxProperties: EVENT_LIMITS.dataProperties,
      propertyNames: { minLength: 1, maxLength: EVENT_LIMITS.nameMax },
      description: 'Event properties: strings, numbers, booleans (0, null and "" are dropped); objects and arrays are stored but not segmentable; `$extra` is kept verbatim.',
    }),
  ),
  eventTimestamp: Type.Optional(DateTime({ description: 'When the event occurred; defaults to when it was accepted.' })),
  value: Type.Optional(Num()),
  valueCurrency: Type.Optional(Currency()),
  uniqueId: Type.Optional(Type.String({ minLength: 1, maxLength: EVENT_LIMITS.uniqueIdMax, description: 'Deduplication key: the first event with it in the store wins.' })),
  backfill: Type.Optional(
    Type.Boolean({ default: false, description: 'History being imported: the event is stored, counted and segmentable but starts no flow.' }),
  ),
});

/** A request that passed validation: only the fields the service uses. */
export type ValidEvent = Pick<Static<typeof CustomEventSchema>, 'eventName' | 'customer' | 'data' | 'eventTimestamp' | 'value' | 'valueCurrency' | 'uniqueId' | 'backfill'>;
export type EventCustomer = ValidEvent['customer'];

export const BulkEventsSchema = Type.Object({
  events: Type.Array(Type.Unknown({ description: 'A custom event request; each is validated alone.' }), { minItems: 1, maxItems: EVENT_LIMITS.bulkMax }),
});

/** The answer to a bulk request (202): one result per event, in request order. */
export const BulkEventsResultSchema = Strict(
  {
    accepted: Int({ min: 0 }),
    rejected: Int({ min: 0 }),
    results: Type.Array(
      Strict({
        index: Int({ min: 0, description: 'Position of the event in the request.' }),
        status: OneOf(['queued', 'rejected'] as const),
        error: Type.Optional(
          Strict(
            { detail: Type.String(), errors: Type.Array(Strict({ pointer: Type.String({ description: 'JSON pointer into the bulk body, e.g. /events/3/customer/email.' }), detail: Type.String() })) },
            { description: 'Why a rejected event was refused (absent for queued ones).' },
          ),
        ),
      }),
    ),
  },
  { title: 'BulkEventsResult' },
);
export type BulkEventsResult = Static<typeof BulkEventsResultSchema>;

export type Validation<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/** Validates one custom event request; `at` prefixes every pointer (bulk items: `/events/3`). */
export function validateEvent(body: unknown, at = ''): Validation<ValidEvent> {
  const errors = [...inspectJson(body, { pointer: at, maxStringBytes: EVENT_LIMITS.stringBytes }), ...violationsOf(CustomEventSchema, body, at)];
  if (errors.length) return { ok: false, errors };
  const { eventName, customer, data, eventTimestamp, value, valueCurrency, uniqueId, backfill } = body as Static<typeof CustomEventSchema>;
  return { ok: true, value: { eventName, customer, data, eventTimestamp, value, valueCurrency, uniqueId, ...(backfill ? { backfill } : {}) } };
}

/** The bulk body `{events: [...]}` (1 to 100); each event is then validated alone. */
export function validateBulkEnvelope(body: unknown): Validation<unknown[]> {
  const errors = violationsOf(BulkEventsSchema, body);
  return errors.length ? { ok: false, errors } : { ok: true, value: (body as Static<typeof BulkEventsSchema>).events };
}
