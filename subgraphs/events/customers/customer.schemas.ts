import { Email, Phone, Strict, Text, Type, type Static } from '../../../platform/validation/index.js';
import { EVENT_LIMITS, LocationSchema } from '../custom-event.schemas.js';

/**
 * The real platform's customer operations (`GET`/`PUT /stores/{storeId}/customers`), as its
 * published schema shapes them. The profile is the one custom events patch: the same fields, the
 * same rules (E.164 phones, ISO country codes, IANA zones, custom field values and their date
 * typing). Consent is another operation (`customer-subscriptions`) and adds its own fields.
 */

const CustomFieldsSchema = Type.Unsafe<Record<string, string | number | boolean>>({
  type: 'object',
  maxProperties: EVENT_LIMITS.dataProperties,
  propertyNames: { minLength: 1, maxLength: EVENT_LIMITS.nameMax },
  additionalProperties: { type: ['string', 'number', 'boolean'] },
  description: 'Merchant-defined; each value a string, number or boolean (ISO 8601 date-times are typed as dates). Merged key by key.',
});

/** `PUT /stores/{storeId}/customers`: the email is the upsert key. */
export const CustomerUpsertSchema = Strict(
  {
    email: Email({ description: 'The upsert key: the customer with this email (any case) is updated, else one is created.' }),
    firstName: Type.Optional(Text({ min: 0, max: 255 })),
    lastName: Type.Optional(Text({ min: 0, max: 255 })),
    phoneNumber: Type.Optional(Phone({ description: 'E.164. Kept when the customer has no phone yet and no other customer of the store has it.' })),
    location: Type.Optional(LocationSchema),
    customFields: Type.Optional(CustomFieldsSchema),
  },
  { title: 'CustomerUpsert' },
);
export type CustomerUpsertBody = Static<typeof CustomerUpsertSchema>;

/** `GET /stores/{storeId}/customers?email=`. */
export const CustomerQuerySchema = Strict({ email: Email({ description: 'Any case.' }) });
