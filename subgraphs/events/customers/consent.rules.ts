import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Consent rules (decisions section 21, docs/consent.md), pure: what a status allows, how merged
 * profiles' consents combine, the SMS keywords, and the signed unsubscribe tokens. No I/O:
 * unit-tested in test/unit/consent-rules.test.ts.
 */

export const CONSENT_CHANNELS = ['email', 'sms'] as const;
export type ConsentChannel = (typeof CONSENT_CHANNELS)[number];

export const CONSENT_KINDS = ['marketing', 'transactional'] as const;
export type ConsentKind = (typeof CONSENT_KINDS)[number];

/** The statuses the published `customer-subscriptions` operation uses; `never_subscribed` is the absence of any. */
export const STORED_STATUSES = ['subscribed', 'confirmed', 'unsubscribed'] as const;
export type StoredStatus = (typeof STORED_STATUSES)[number];
export const CONSENT_STATUSES = [...STORED_STATUSES, 'never_subscribed'] as const;
export type ConsentStatus = (typeof CONSENT_STATUSES)[number];

/** How a consent changed (kept in its history). */
export const CONSENT_METHODS = ['API', 'IMPORT', 'DASHBOARD', 'UNSUBSCRIBE_LINK', 'ONE_CLICK', 'SMS_KEYWORD', 'MERGE'] as const;
export type ConsentMethod = (typeof CONSENT_METHODS)[number];

/** Changes the customer made themselves: they always take effect, whatever a client dated its last change. */
export const CUSTOMER_METHODS: ReadonlySet<ConsentMethod> = new Set(['UNSUBSCRIBE_LINK', 'ONE_CLICK', 'SMS_KEYWORD']);

export const isSubscribed = (status: ConsentStatus | undefined): boolean => status === 'subscribed' || status === 'confirmed';

/**
 * Whether a message of `kind` may go to a customer on a channel, and why not: marketing only with a
 * subscribed (or confirmed) marketing consent; transactional unless transactional is unsubscribed.
 * A suppressed channel takes nothing.
 */
export function sendRefusal(kind: ConsentKind, channel: ConsentChannel, consent: { marketing?: ConsentStatus; transactional?: ConsentStatus }, suppression: string | null): string | null {
  const name = channel === 'email' ? 'email' : 'SMS';
  if (suppression) return `${name} suppressed (${suppression})`;
  if (kind === 'marketing') {
    const status = consent.marketing ?? 'never_subscribed';
    return isSubscribed(status) ? null : `no ${name} marketing consent (${status})`;
  }
  return consent.transactional === 'unsubscribed' ? `unsubscribed from transactional ${name}` : null;
}

export interface DatedStatus {
  status: StoredStatus;
  changedAt: Date;
}

/**
 * The consent a merged profile keeps for one (channel, kind), from every merged profile's: an
 * unsubscribe is never undone by a merge (the latest unsubscribe wins), else the latest consent.
 */
export function mergedConsent(states: readonly DatedStatus[]): DatedStatus | null {
  const latest = (list: readonly DatedStatus[]) => list.reduce<DatedStatus | null>((best, s) => (!best || s.changedAt > best.changedAt ? s : best), null);
  const unsubscribed = states.filter((s) => s.status === 'unsubscribed');
  return latest(unsubscribed.length ? unsubscribed : states);
}

/** The carrier keywords (CTIA): a message that is one of them, alone, opts out or back in. */
const STOP_WORDS = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'REVOKE', 'OPTOUT']);
const START_WORDS = new Set(['START', 'UNSTOP']);

export type SmsKeyword = { action: 'stop' | 'start'; word: string } | null;

/** The keyword an inbound SMS is (case and surrounding spaces or punctuation ignored), or null for any other text. */
export function smsKeyword(text: string): SmsKeyword {
  const word = text
    .trim()
    .replace(/^[\s.!"']+|[\s.!"']+$/g, '')
    .toUpperCase();
  if (STOP_WORDS.has(word)) return { action: 'stop', word };
  if (START_WORDS.has(word)) return { action: 'start', word };
  return null;
}

/**
 * A sender's number as providers post it (`+14155550123`, `14155550123`, `+1 (415) 555-0123`) in
 * E.164, or null when it is no phone number (a short code, an alphanumeric sender).
 */
export function inboundPhone(from: string): string | null {
  const digits = from.trim().replace(/^00/, '+').replace(/[\s().-]/g, '');
  const e164 = digits.startsWith('+') ? digits : `+${digits}`;
  return /^\+[1-9][0-9]{6,14}$/.test(e164) ? e164 : null;
}

/** What an unsubscribe token names: one store's customer on one channel. */
export interface UnsubscribeClaim {
  storeId: string;
  customerId: string;
  channel: ConsentChannel;
}

const TOKEN_VERSION = 'u1';

function signature(key: Buffer, body: string): Buffer {
  return createHmac('sha256', key).update(`${TOKEN_VERSION}.${body}`).digest();
}

/** `u1.<base64url of store, customer, channel>.<HMAC-SHA256>`: opaque in a URL, unforgeable without the key. */
export function signUnsubscribe(key: Buffer, claim: UnsubscribeClaim): string {
  const body = Buffer.from(JSON.stringify([claim.storeId, claim.customerId, claim.channel])).toString('base64url');
  return `${TOKEN_VERSION}.${body}.${signature(key, body).toString('base64url')}`;
}

/** The claim of a token signed with `key`, or null when it is malformed or its signature does not match (compared in constant time). */
export function verifyUnsubscribe(key: Buffer, token: string): UnsubscribeClaim | null {
  if (typeof token !== 'string' || token.length > 512) return null;
  const [version, body, sig, ...rest] = token.split('.');
  if (version !== TOKEN_VERSION || !body || !sig || rest.length || !/^[A-Za-z0-9_-]+$/.test(body) || !/^[A-Za-z0-9_-]+$/.test(sig)) return null;
  const expected = signature(key, body);
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 3 || !parsed.every((p) => typeof p === 'string')) return null;
  const [storeId, customerId, channel] = parsed as [string, string, string];
  if (!(CONSENT_CHANNELS as readonly string[]).includes(channel)) return null;
  return { storeId, customerId, channel: channel as ConsentChannel };
}

/** An address shown on a page someone reached with a link: enough to recognise, not enough to harvest (`a***@example.com`, `+1******0123`). */
export function maskAddress(address: string | null): string {
  if (!address) return '';
  const at = address.lastIndexOf('@');
  if (at > 0) return `${address[0]}***${address.slice(at)}`;
  return address.length > 6 ? `${address.slice(0, 2)}${'*'.repeat(address.length - 6)}${address.slice(-4)}` : '****';
}
