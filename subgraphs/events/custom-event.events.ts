import { outboxContract } from '../../platform/jobs/outbox.js';
import { DateTime, OrNull, Strict, Type, type Static } from '../../platform/validation/index.js';
import type { JsonObject, JsonValue } from './custom-event.schemas.js';

const Str = Type.String();
const NullableStr = OrNull(Type.String());
const FreeObject = (description: string) => Type.Unsafe<Record<string, unknown>>({ type: 'object', description });

/** A processed custom event as subscribers (webhooks, flows' `webhook` steps) receive it. */
export const CustomEventDocumentSchema = Strict(
  {
    id: Str,
    eventName: Str,
    eventTimestamp: DateTime({ description: 'When the event occurred (when it was accepted, if the request gave no time).' }),
    value: OrNull(Type.Number()),
    valueCurrency: NullableStr,
    uniqueId: NullableStr,
    data: Type.Unsafe<JsonObject>({ type: 'object', description: 'The event properties as stored: top-level `0`, `null` and `""` dropped, `$extra` apart (in `extra`).' }),
    extra: Type.Unsafe<JsonValue>({ description: "The request's `data.$extra`, verbatim (null when absent)." }),
    customerId: Str,
    createdAt: DateTime(),
  },
  { title: 'CustomEvent' },
);
export type CustomEventDocument = Static<typeof CustomEventDocumentSchema>;

/** The event's customer after the event's patch was applied. */
export const CustomerDocumentSchema = Strict(
  {
    id: Str,
    email: NullableStr,
    phoneNumber: NullableStr,
    firstName: NullableStr,
    lastName: NullableStr,
    location: OrNull(FreeObject('The last location sent for the customer.')),
    customFields: OrNull(FreeObject('Merchant-defined fields, merged from every event.')),
    createdAt: DateTime(),
    updatedAt: DateTime(),
  },
  { title: 'Customer' },
);
export type CustomerDocument = Static<typeof CustomerDocumentSchema>;

/** The payload of the event the events subgraph publishes (version 1) once an accepted custom event is processed. */
const CustomEventCreatedDataSchema = Strict({ event: CustomEventDocumentSchema, customer: CustomerDocumentSchema });
export type CustomEventCreatedData = Static<typeof CustomEventCreatedDataSchema>;

export const CustomEventCreated = outboxContract('custom_event.created', 'custom_event', 1, CustomEventCreatedDataSchema);

export const CUSTOM_EVENT_EVENTS = [CustomEventCreated] as const;
