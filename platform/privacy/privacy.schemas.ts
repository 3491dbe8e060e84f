import { invalid } from '../errors.js';
import { DateTime, Email, Int, isEmail, isPhoneNumber, OneOf, OrNull, Phone, Strict, Text, textProblem, Type, type Static } from '../validation/index.js';
import { ERASURE_ACTIONS, SUPPRESSION_MODES } from './participants.js';
import type { CustomerIdentifier } from './subject.js';

/** The REST bodies and documents of privacy requests (rest-facade/v2/privacy.routes.ts), and the identifier rule GraphQL shares. */

const CustomerId = Text({ description: 'The service customer id (`cus_...`).' });
const IdentifierFields = {
  customerId: Type.Optional(CustomerId),
  email: Type.Optional(Email({ description: 'Compared case-insensitively.' })),
  phoneNumber: Type.Optional(Phone({ description: 'E.164.' })),
};
const EXACTLY_ONE = 'Give exactly one of customerId, email or phoneNumber.';

export const ErasureBodySchema = Strict(
  {
    ...IdentifierFields,
    suppression: Type.Optional(
      OneOf(SUPPRESSION_MODES, { description: 'Later events with an erased identifier: `DROP` (default) accepts them and stores nothing; `REFUSE` answers them 409 `customer-erased`.' }),
    ),
  },
  { title: 'ErasureRequestBody', description: EXACTLY_ONE },
);

export const ExportBodySchema = Strict(IdentifierFields, { title: 'CustomerExportBody', description: EXACTLY_ONE });

/**
 * The one identifier of a request (REST body or GraphQL `by`), checked by the service's rules.
 * `names` says how each is spelled where it came from (GraphQL calls the customer id `id`).
 */
export function oneIdentifier(by: { customerId?: string | null; email?: string | null; phoneNumber?: string | null }, prefix: string, names = { customerId: 'customerId' }): CustomerIdentifier {
  const given = (['customerId', 'email', 'phoneNumber'] as const).filter((k) => by[k] !== undefined && by[k] !== null);
  const pointer = (k: string) => `${prefix}/${k === 'customerId' ? names.customerId : k}`;
  if (given.length !== 1) throw invalid('validation-failed', EXACTLY_ONE, [{ pointer: prefix, detail: `must name exactly one of ${names.customerId}, email, phoneNumber` }]);
  const key = given[0]!;
  const value = by[key]!;
  const problem =
    key === 'email' ? (isEmail(value) ? undefined : 'must be an email address') : key === 'phoneNumber' ? (isPhoneNumber(value) ? undefined : 'must be an E.164 phone number') : (textProblem(value) ?? (value.trim() && value.length <= 255 ? undefined : 'must be 1 to 255 characters'));
  if (problem) throw invalid('validation-failed', 'The identifier is invalid.', [{ pointer: pointer(key), detail: problem }]);
  return { [key]: value };
}

const ERASURE_STATUSES = ['PENDING', 'RUNNING', 'COMPLETED', 'FAILED'] as const;
export type ErasureStatus = (typeof ERASURE_STATUSES)[number];

const ErasureCountSchema = Strict({
  kind: Type.String({ description: 'The kind of record: customer, custom_event, unique_id, flow_run, flow_run_step, message, suppression, order, return, return_item, return_comment, webhook_message, webhook_attempt, job.' }),
  action: OneOf(ERASURE_ACTIONS, { description: 'REMOVED (deleted), ANONYMISED (kept without the person), SUPPRESSED (identifier hashes kept).' }),
  count: Int({ min: 0 }),
});

export const ErasureDocumentSchema = Strict(
  {
    id: Type.String({ description: '`era_...`' }),
    storeId: Type.String(),
    status: OneOf(ERASURE_STATUSES, { description: 'PENDING (queued), RUNNING, COMPLETED, or FAILED (retries exhausted; an administrator retries its dead letter).' }),
    requestedBy: OneOf(['customerId', 'email', 'phoneNumber'] as const, { description: 'Which identifier the request named (the value is not kept).' }),
    suppression: OneOf(SUPPRESSION_MODES),
    customerIds: Type.Array(Type.String(), { description: 'The service ids of the erased profiles (known once the erasure ran).' }),
    counts: Type.Array(ErasureCountSchema, { description: 'What was removed, anonymised or suppressed, per kind of record.' }),
    requestedAt: DateTime(),
    completedAt: OrNull(DateTime()),
  },
  { title: 'Erasure' },
);
export type ErasureDocument = Static<typeof ErasureDocumentSchema>;

export const ErasureResponseSchema = Strict({ erasure: ErasureDocumentSchema }, { title: 'ErasureResponse' });

const Days = (what: string) => OrNull(Int({ min: 1, max: 36_500, description: `Days ${what} are kept (null: until erased).` }));
const RetentionDocumentSchema = Strict(
  {
    customEventDays: Days('custom events (by their eventTimestamp)'),
    messageDays: Days('messages flows sent'),
    flowRunDays: Days('finished flow runs and their steps'),
    webhookLogDays: Days('webhook delivery logs and sent webhook messages'),
  },
  { title: 'DataRetention' },
);
export type RetentionDocument = Static<typeof RetentionDocumentSchema>;
export const RetentionResponseSchema = Strict({ retention: RetentionDocumentSchema }, { title: 'DataRetentionResponse' });

const OptionalDays = (what: string) => Type.Optional(Days(what));
export const RetentionBodySchema = Strict(
  {
    retention: Strict(
      {
        customEventDays: OptionalDays('custom events'),
        messageDays: OptionalDays('messages'),
        flowRunDays: OptionalDays('finished flow runs'),
        webhookLogDays: OptionalDays('webhook delivery logs'),
      },
      { description: 'Each given value replaces the stored one (null: kept until erased); omitted ones stay.' },
    ),
  },
  { title: 'DataRetentionBody' },
);
