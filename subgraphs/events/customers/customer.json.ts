import { DateTime, Num, OrNull, Strict, Type, type Static } from '../../../platform/validation/index.js';
import type { CustomerRow } from './customer.rows.js';

/**
 * A customer as the real platform's customer operations read it (`customer-read`): what the store
 * knows of the person. An optional field the service does not know is left out (the schema allows
 * no `null` for it).
 */
const OptStr = Type.Optional(Type.String());
export const RestCustomerSchema = Strict(
  {
    id: Type.String(),
    email: Type.String({ format: 'email' }),
    firstName: OptStr,
    lastName: OptStr,
    phoneNumber: OptStr,
    location: Type.Optional(
      Strict({
        street1: OptStr,
        street2: OptStr,
        city: OptStr,
        state: OptStr,
        stateCode: OptStr,
        postalCode: OptStr,
        country: OptStr,
        countryCode: OptStr,
        ianaTimeZoneName: OptStr,
        latitude: Type.Optional(Num()),
        longitude: Type.Optional(Num()),
      }),
    ),
    customFields: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]))),
    createdAt: OrNull(DateTime()),
    updatedAt: OrNull(DateTime()),
  },
  { title: 'CustomerProfile' },
);
export type RestCustomer = Static<typeof RestCustomerSchema>;

export const CustomerUpsertResultSchema = Strict(
  { id: Type.String(), email: Type.String(), created: Type.Boolean({ description: 'True when the customer was created (201), false when updated (200).' }) },
  { title: 'CustomerUpsertResult' },
);

const LOCATION_KEYS = ['street1', 'street2', 'city', 'state', 'stateCode', 'postalCode', 'country', 'countryCode', 'ianaTimeZoneName', 'latitude', 'longitude'] as const;

export function restCustomer(row: CustomerRow & { email: string }): RestCustomer {
  const location = row.location ? Object.fromEntries(LOCATION_KEYS.flatMap((k) => (row.location![k] === undefined || row.location![k] === null ? [] : [[k, row.location![k]]]))) : undefined;
  return {
    id: row.id,
    email: row.email,
    firstName: row.firstName ?? undefined,
    lastName: row.lastName ?? undefined,
    phoneNumber: row.phoneNumber ?? undefined,
    location: location && Object.keys(location).length ? (location as RestCustomer['location']) : undefined,
    customFields: row.customFields ? (row.customFields as RestCustomer['customFields']) : undefined,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}
