import { defineEntity, p } from '@mikro-orm/postgresql';

/** A store's customer profile, built from the events posted for them. */
export const CustomerEntity = defineEntity({
  name: 'Customer',
  tableName: 'customer',
  properties: {
    id: p.string().primary(),
    storeId: p.string(),
    email: p.string().nullable(),
    phoneNumber: p.string().nullable(),
    firstName: p.string().nullable(),
    lastName: p.string().nullable(),
    location: p.json().nullable(),
    customFields: p.json().nullable(),
    /** Custom fields that are dates, as epoch seconds (segments compare them as dates). */
    customFieldDates: p.json().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
