import { outboxContract } from '../jobs/outbox.js';
import { Strict } from '../validation/index.js';
import { ErasureDocumentSchema } from './privacy.schemas.js';

/**
 * Published once per erasure, when it completed (version 1), so subscribers can erase their own
 * copies: the erasure as its status document shows it (the erased customer ids and the counts),
 * never an identifier's value.
 */
const CustomerErasedDataSchema = Strict({ erasure: ErasureDocumentSchema });

export const CustomerErased = outboxContract('customer.erased', 'erasure', 1, CustomerErasedDataSchema);

export const PRIVACY_EVENTS = [CustomerErased] as const;
