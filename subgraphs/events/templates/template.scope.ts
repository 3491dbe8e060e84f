import type { CustomEventRow } from '../custom-event.service.js';
import type { CustomerRow } from '../customer.service.js';
import type { TemplateScope } from './template.render.js';

/** What a template sees of a real event, its customer and the store (decisions section 16). */
export function templateScope(event: CustomEventRow | null, customer: CustomerRow, store: { id: string; name: string }, sample: TemplateScope['event']): TemplateScope {
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
      : sample,
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
