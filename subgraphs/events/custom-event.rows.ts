import type { PropertyType } from './custom-event.rules.js';
import type { JsonValue } from './custom-event.schemas.js';

/** Custom events and the event properties seen, as stored (camelCase aliases from SQL), and the events' column list. */

export interface CustomEventRow {
  id: string;
  storeId: string;
  customerId: string;
  eventName: string;
  eventTimestamp: Date;
  value: number | null;
  valueCurrency: string | null;
  uniqueId: string | null;
  data: Record<string, JsonValue>;
  extra: JsonValue | null;
  createdAt: Date;
}

export interface EventPropertyRow {
  eventName: string;
  key: string;
  type: PropertyType;
  firstSeenAt: Date;
}

export const EVENT_COLUMNS = `id, store_id as "storeId", customer_id as "customerId", event_name as "eventName", event_timestamp as "eventTimestamp",
  value::float8 as value, value_currency as "valueCurrency", unique_id as "uniqueId", data, extra, created_at as "createdAt"`;
