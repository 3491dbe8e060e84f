import type { CustomEventRow } from '../custom-event.rows.js';
import type { CustomerRow } from '../customers/customer.rows.js';
import type { TemplateScope } from './template-engine.service.js';

/** What a template sees of a real event, its customer and the store (decisions section 16). */
/** `sample` stands in for the event when there is none (a preview for a customer only). */
export function templateScope(event: CustomEventRow | null, customer: CustomerRow, store: { id: string; name: string }, sample: TemplateScope['event'] | null): TemplateScope {
  return {
    event: event
      ? {
          name: event.eventName,
          timestamp: event.eventTimestamp.toISOString(),
          value: event.value,
          valueCurrency: event.valueCurrency,
          uniqueId: event.uniqueId,
          data: event.data,
          extra: event.extra,
        }
      : (sample ?? { name: '', timestamp: '', value: null, valueCurrency: null, uniqueId: null, data: {}, extra: null }),
    customer: {
      id: customer.id,
      email: customer.email,
      phoneNumber: customer.phoneNumber,
      firstName: customer.firstName,
      lastName: customer.lastName,
      location: customer.location,
      customFields: customer.customFields,
    },
    store,
  };
}
