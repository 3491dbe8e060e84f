import { outboxContract } from '../../platform/outbox.js';
import type { customerPayload, eventPayload } from './custom-event.service.js';

/** The event the events subgraph publishes (version 1) once an accepted custom event is processed. */
export interface CustomEventCreatedData {
  event: ReturnType<typeof eventPayload>;
  customer: ReturnType<typeof customerPayload>;
}

export const CustomEventCreated = outboxContract<CustomEventCreatedData>()('custom_event.created', 'custom_event');

export const CUSTOM_EVENT_EVENTS = [CustomEventCreated] as const;
