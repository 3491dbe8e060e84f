import { DateTime, OneOf, OrNull, Strict, Type, type Static } from '../../../platform/validation/index.js';
import { CONSENT_CHANNELS, CONSENT_KINDS, CONSENT_METHODS, CONSENT_STATUSES, STORED_STATUSES } from './consent.rules.js';
import { consentMatrix, type ConsentChangeRow, type ConsentRow } from './consent.service.js';

/** A customer's consent and its history as the REST export writes them (docs/consent.md). */

export const ConsentDocumentSchema = Strict(
  {
    channel: OneOf(CONSENT_CHANNELS),
    kind: OneOf(CONSENT_KINDS),
    status: OneOf(CONSENT_STATUSES),
    method: OrNull(OneOf(CONSENT_METHODS)),
    changedAt: OrNull(DateTime()),
  },
  { title: 'Consent', description: 'A consent of the customer per channel and kind (never_subscribed: nothing recorded).' },
);

export const ConsentChangeDocumentSchema = Strict(
  {
    id: Type.String(),
    channel: OneOf(CONSENT_CHANNELS),
    kind: OneOf(CONSENT_KINDS),
    status: OneOf(STORED_STATUSES),
    previousStatus: OrNull(OneOf(STORED_STATUSES)),
    method: OneOf(CONSENT_METHODS),
    actor: Type.String({ description: '`secret:<secret id>`, `admin`, or `customer` (a link, a one-click POST, an SMS reply).' }),
    address: OrNull(Type.String()),
    detail: OrNull(Type.String()),
    changedAt: DateTime({ description: 'When it took effect.' }),
    recordedAt: DateTime({ description: 'When the service recorded it.' }),
  },
  { title: 'ConsentChange', description: 'A change of a consent, kept as the proof of consent.' },
);

export function consentDocuments(rows: readonly ConsentRow[]): Static<typeof ConsentDocumentSchema>[] {
  return consentMatrix(rows).map((c) => ({ ...c, changedAt: c.changedAt?.toISOString() ?? null }));
}

export function consentChangeDocument(c: ConsentChangeRow): Static<typeof ConsentChangeDocumentSchema> {
  return {
    id: c.id,
    channel: c.channel,
    kind: c.kind,
    status: c.status,
    previousStatus: c.previousStatus,
    method: c.method,
    actor: c.actor,
    address: c.address,
    detail: c.detail,
    changedAt: c.changedAt.toISOString(),
    recordedAt: c.recordedAt.toISOString(),
  };
}
