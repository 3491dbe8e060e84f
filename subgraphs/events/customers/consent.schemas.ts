import type { FieldError } from '../../../platform/errors.js';
import { DateTime, Email, inspectJson, OneOf, Phone, Strict, Type, violationsOf, type Static } from '../../../platform/validation/index.js';
import type { ConsentChannel, ConsentKind, StoredStatus } from './consent.rules.js';

/**
 * `POST /v2.2/stores/{storeId}/customer-subscriptions` as the real platform's published schema
 * shapes it (`@redotech/redo-api-schema`, operation "Customer subscriptions update"): the body,
 * refused whole with every violation and its pointer, and the answer. The GraphQL mutation
 * `updateCustomerSubscriptions` takes the same body, checked here, so both answer alike.
 */

const UpdatedAt = Type.Optional(DateTime({ description: 'When the customer gave or withdrew consent (ISO 8601); defaults to now. An older change never replaces a newer one.' }));
const TriggerAutomations = Type.Optional(
  Type.Boolean({ default: false, description: 'Records a `Subscribed to ... Marketing` (or `Unsubscribed from ...`) event that can start flows, when the status changes.' }),
);

const EmailMarketing = Strict(
  { subscriptionStatus: OneOf(['subscribed', 'unsubscribed'] as const), triggerAutomations: TriggerAutomations, updatedAt: UpdatedAt },
  { description: 'Email marketing consent (always confirmed on subscribe).' },
);
const SmsMarketing = Strict(
  {
    subscriptionStatus: OneOf(['subscribed', 'confirmed', 'unsubscribed'] as const, { description: '`confirmed`: the customer completed a double opt-in elsewhere.' }),
    triggerAutomations: TriggerAutomations,
    updatedAt: UpdatedAt,
  },
  { title: 'Subscription Status Marketing' },
);
const SmsTransactional = Strict({ subscriptionStatus: OneOf(['subscribed', 'unsubscribed'] as const), updatedAt: UpdatedAt }, { title: 'Subscription Status Transactional' });

export const CustomerSubscriptionsSchema = Strict(
  {
    email: Type.Optional(
      Strict(
        { email: Email({ description: 'The customer (created when the store has none with this email).' }), subscriptions: Strict({ marketing: Type.Optional(EmailMarketing) }) },
        { description: 'Email subscription updates' },
      ),
    ),
    sms: Type.Optional(
      Strict(
        {
          phoneNumber: Phone({ description: 'E.164 (`+14155550123`); the customer is created when the store has none with this number.' }),
          subscriptions: Strict({ marketing: Type.Optional(SmsMarketing), transactional: Type.Optional(SmsTransactional) }),
        },
        { description: 'SMS subscription updates' },
      ),
    ),
  },
  { title: 'CustomerSubscriptionsRequest' },
);
type CustomerSubscriptionsBody = Static<typeof CustomerSubscriptionsSchema>;

export const CustomerSubscriptionsResultSchema = Strict(
  {
    success: Type.Boolean(),
    message: Type.String({ description: 'Human-readable result.' }),
    updatedSubscriptions: Strict(
      {
        email: Type.Optional(Strict({ marketing: Type.Optional(Type.Boolean({ description: 'Whether email marketing was updated.' })) })),
        sms: Type.Optional(Strict({ marketing: Type.Optional(Type.Boolean()), transactional: Type.Optional(Type.Boolean()) })),
      },
      {
        description:
          'Per given subscription, whether it was recorded: false when the store already holds a later change (an older `updatedAt`), or the customer was erased.',
      },
    ),
  },
  { title: 'CustomerSubscriptionsResult' },
);
export type CustomerSubscriptionsResult = Static<typeof CustomerSubscriptionsResultSchema>;

/** One change the body asks for: a (channel, kind) of the customer the address names. */
export interface RequestedChange {
  channel: ConsentChannel;
  kind: ConsentKind;
  status: StoredStatus;
  /** The client's `updatedAt`, else undefined (now). */
  at?: Date;
  triggerAutomations: boolean;
  pointer: string;
}

export interface RequestedSubscriptions {
  email?: { address: string; changes: RequestedChange[] };
  sms?: { address: string; changes: RequestedChange[] };
}

/** How far ahead of the service's clock an `updatedAt` may be (clock skew); later is refused, as it would outrank every later change. */
const FUTURE_SKEW_MS = 5 * 60_000;

/** Checks a body whole (every violation, with its pointer); what it asks for, or the violations. */
export function readSubscriptions(body: unknown, now = Date.now()): { ok: true; value: RequestedSubscriptions } | { ok: false; errors: FieldError[] } {
  const errors = [...inspectJson(body, { maxStringBytes: 16 * 1024 }), ...violationsOf(CustomerSubscriptionsSchema, body)];
  if (errors.length) return { ok: false, errors };
  const b = body as CustomerSubscriptionsBody;
  if (!b.email && !b.sms) return { ok: false, errors: [{ pointer: '', detail: 'give email, sms or both' }] };
  const value: RequestedSubscriptions = {};
  const change = (channel: ConsentChannel, kind: ConsentKind, given: { subscriptionStatus: StoredStatus; updatedAt?: string; triggerAutomations?: boolean }, pointer: string): RequestedChange => {
    const at = given.updatedAt === undefined ? undefined : new Date(given.updatedAt);
    if (at && at.getTime() > now + FUTURE_SKEW_MS) errors.push({ pointer: `${pointer}/updatedAt`, detail: 'must not be in the future' });
    return { channel, kind, status: given.subscriptionStatus, at, triggerAutomations: given.triggerAutomations ?? false, pointer };
  };
  if (b.email) {
    const changes = b.email.subscriptions.marketing ? [change('email', 'marketing', b.email.subscriptions.marketing, '/email/subscriptions/marketing')] : [];
    if (!changes.length) errors.push({ pointer: '/email/subscriptions', detail: 'give marketing' });
    value.email = { address: b.email.email, changes };
  }
  if (b.sms) {
    const { marketing, transactional } = b.sms.subscriptions;
    const changes = [
      ...(marketing ? [change('sms', 'marketing', marketing, '/sms/subscriptions/marketing')] : []),
      ...(transactional ? [change('sms', 'transactional', transactional, '/sms/subscriptions/transactional')] : []),
    ];
    if (!changes.length) errors.push({ pointer: '/sms/subscriptions', detail: 'give marketing, transactional or both' });
    value.sms = { address: b.sms.phoneNumber, changes };
  }
  return errors.length ? { ok: false, errors } : { ok: true, value };
}
