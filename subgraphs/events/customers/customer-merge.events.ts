import { outboxContract } from '../../../platform/jobs/outbox.js';
import { OrNull, Strict, Type, type Static } from '../../../platform/validation/index.js';

const Identity = Strict({ id: Type.String(), email: OrNull(Type.String()), phoneNumber: OrNull(Type.String()) });

/**
 * Profiles merged into one (`mergeCustomers`): the surviving profile as it is after the merge, and
 * each merged profile's id and identifiers as they were. Other parts relink what they hold by those
 * identifiers (the returns subgraph: orders and returns matched by email and phone).
 */
export const CustomerMergedDataSchema = Strict({ into: Identity, merged: Type.Array(Identity, { minItems: 1 }) }, { title: 'CustomerMerged' });
export type CustomerMergedData = Static<typeof CustomerMergedDataSchema>;

export const CustomerMerged = outboxContract('customer.merged', 'customer', 1, CustomerMergedDataSchema);
