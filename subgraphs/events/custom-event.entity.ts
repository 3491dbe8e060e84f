import { defineEntity, p } from '@mikro-orm/postgresql';

/** A processed custom event: what was stored after the data rules. Written and read with SQL (see custom-event.service.ts). */
export const CustomEventEntity = defineEntity({
  name: 'CustomEvent',
  tableName: 'custom_event',
  properties: {
    id: p.string().primary(),
    storeId: p.string(),
    customerId: p.string(),
    eventName: p.string(),
    eventTimestamp: p.datetime(),
    value: p.decimal().nullable(),
    valueCurrency: p.string().nullable(),
    uniqueId: p.string().nullable(),
    data: p.json(),
    /** Date-typed properties of `data` as epoch seconds. */
    dataDates: p.json(),
    extra: p.json().nullable(),
    receivedAt: p.datetime(),
    createdAt: p.datetime(),
  },
});

/** One entry of the property catalogue. */
export const EventPropertyEntity = defineEntity({
  name: 'EventProperty',
  tableName: 'event_property',
  properties: {
    storeId: p.string().primary(),
    eventName: p.string().primary(),
    key: p.string().primary(),
    type: p.string().primary(),
    firstSeenAt: p.datetime(),
  },
});
