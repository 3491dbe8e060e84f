import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AccountsService } from '../../../platform/accounts/accounts.service.js';
import type { Page, PageRequest } from '../../../platform/api/pagination.js';
import { BulkInsert } from '../../../platform/db/bulk-insert.js';
import { Conditions, keysetPage } from '../../../platform/db/keyset.js';
import { sql, type EntityManager, type Orm } from '../../../platform/db/orm.js';
import { AppError, invalid, notFound } from '../../../platform/errors.js';
import { newId } from '../../../platform/ids.js';
import type { EventInbox } from '../event-inbox.service.js';
import type { CustomEventJob } from '../event-ingestion.service.js';
import { resolveCustomers } from './customer-resolution.service.js';
import { lockStoresShared, type CustomerSuppressions } from './customer-suppression.service.js';
import { customerColumns, type CustomerRow } from './customer.rows.js';
import {
  CONSENT_CHANNELS,
  CONSENT_KINDS,
  CUSTOMER_METHODS,
  isSubscribed,
  signUnsubscribe,
  verifyUnsubscribe,
  type ConsentChannel,
  type ConsentKind,
  type ConsentMethod,
  type ConsentStatus,
  type StoredStatus,
  type UnsubscribeClaim,
} from './consent.rules.js';
import { readSubscriptions, type CustomerSubscriptionsResult, type RequestedChange } from './consent.schemas.js';

/** One consent change to record. */
export interface ConsentWrite {
  storeId: string;
  customerId: string;
  channel: ConsentChannel;
  kind: ConsentKind;
  status: StoredStatus;
  /** When it took effect (a client's `updatedAt`); customer-made changes take effect now, whatever is stored. */
  at: Date;
  method: ConsentMethod;
  actor: string;
  address: string | null;
  detail?: string | null;
}

export interface AppliedWrite {
  /** False when the store already held a later change of this consent. */
  applied: boolean;
  /** The status before (never_subscribed when there was none). */
  previous: ConsentStatus;
  changed: boolean;
}

export interface ConsentRow {
  customerId: string;
  channel: ConsentChannel;
  kind: ConsentKind;
  status: StoredStatus;
  method: ConsentMethod;
  changedAt: Date;
}

export interface ConsentChangeRow {
  id: string;
  customerId: string;
  channel: ConsentChannel;
  kind: ConsentKind;
  status: StoredStatus;
  previousStatus: StoredStatus | null;
  method: ConsentMethod;
  actor: string;
  address: string | null;
  detail: string | null;
  changedAt: Date;
  recordedAt: Date;
}

export interface SuppressionRow {
  customerId: string;
  channel: ConsentChannel;
  reason: string;
  createdAt: Date;
}

/** What a send needs to know of a customer: consent per channel and kind, and suppressed channels with their reasons. */
export interface SendPermissions {
  consent: Map<string, ConsentStatus>;
  suppression: Map<ConsentChannel, string>;
}

const CHANGE_COLUMNS = `id, customer_id as "customerId", channel, kind, status, previous_status as "previousStatus", method, actor, address, detail,
  changed_at as "changedAt", recorded_at as "recordedAt"`;

const CHANGES = new BulkInsert<ConsentWrite & { id: string; previous: ConsentStatus }>('consent_change', [
  { name: 'id', type: 'text', value: (w) => w.id },
  { name: 'store_id', type: 'text', value: (w) => w.storeId },
  { name: 'customer_id', type: 'text', value: (w) => w.customerId },
  { name: 'channel', type: 'text', value: (w) => w.channel },
  { name: 'kind', type: 'text', value: (w) => w.kind },
  { name: 'status', type: 'text', value: (w) => w.status },
  { name: 'previous_status', type: 'text', value: (w) => (w.previous === 'never_subscribed' ? null : w.previous) },
  { name: 'method', type: 'text', value: (w) => w.method },
  { name: 'actor', type: 'text', value: (w) => w.actor },
  { name: 'address', type: 'text', value: (w) => w.address },
  { name: 'detail', type: 'text', value: (w) => w.detail ?? null },
  { name: 'changed_at', type: 'timestamptz', value: (w) => w.at.toISOString() },
]);

const CURRENT = new BulkInsert<ConsentWrite>(
  'customer_consent',
  [
    { name: 'customer_id', type: 'text', value: (w) => w.customerId },
    { name: 'store_id', type: 'text', value: (w) => w.storeId },
    { name: 'channel', type: 'text', value: (w) => w.channel },
    { name: 'kind', type: 'text', value: (w) => w.kind },
    { name: 'status', type: 'text', value: (w) => w.status },
    { name: 'method', type: 'text', value: (w) => w.method },
    { name: 'changed_at', type: 'timestamptz', value: (w) => w.at.toISOString() },
  ],
  {
    tail: `on conflict (customer_id, channel, kind) do update set status = excluded.status, method = excluded.method, changed_at = excluded.changed_at,
           recorded_at = clock_timestamp()`,
  },
);

/** The lock space of a customer's messaging: consent writers and the flow batches that send to the customer take it, in id order. */
const MESSAGING_LOCK_SPACE = 40_021;

/**
 * Orders a customer's consent changes and the sends to them: a change waits for the batch that is
 * sending to the customer, and a send after a change sees it (no message goes out after an
 * unsubscribe committed); two batches never send to one customer at once (smart sending holds).
 */
export async function lockMessagingOf(em: EntityManager, customerIds: readonly string[]): Promise<void> {
  const ids = [...new Set(customerIds)].sort();
  if (ids.length) await sql(em, `select pg_advisory_xact_lock(${MESSAGING_LOCK_SPACE}, hashtext(k)) from unnest($1::text[]) as k`, [ids]);
}

const key = (customerId: string, channel: string, kind: string) => `${customerId}\u0000${channel}\u0000${kind}`;

export const consentKey = (channel: ConsentChannel, kind: ConsentKind) => `${channel}:${kind}`;

/** A customer-facing unsubscribe's outcome: the customer (masked on the page) and whether it is done. */
export interface UnsubscribeTarget {
  claim: UnsubscribeClaim;
  storeName: string;
  address: string | null;
  /** The customer's marketing consent on the channel now. */
  status: ConsentStatus;
}

const CONSENT_EVENT_NAMES: Record<ConsentChannel, { on: string; off: string }> = {
  email: { on: 'Subscribed to Email Marketing', off: 'Unsubscribed from Email Marketing' },
  sms: { on: 'Subscribed to SMS Marketing', off: 'Unsubscribed from SMS Marketing' },
};

/** The SMS number of an inbound webhook URL: a secret of the store (kept as its SHA-256), shown once when made. */
const secretHash = (secret: string) => createHash('sha256').update(secret).digest();

/**
 * Customers' consent per channel and kind, its history, channel suppressions, and the ways it
 * changes: the real platform's `customer-subscriptions` operation (and its GraphQL twin), a
 * dashboard's change, the unsubscribe link and its one-click POST, and SMS keywords.
 */
export class ConsentService {
  private tokenKey: Promise<Buffer> | undefined;

  constructor(
    private readonly orm: Orm,
    private readonly deps: { accounts: AccountsService; suppressions: CustomerSuppressions; inbox: EventInbox },
  ) {}

  private em(): EntityManager {
    return this.orm.em.fork();
  }

  /** The key unsubscribe tokens are signed with: made once per database, kept in the platform's settings like the cursor key. */
  unsubscribeKey(): Promise<Buffer> {
    return (this.tokenKey ??= this.deps.accounts
      .sharedSetting('unsubscribe_token_key', () => randomBytes(32).toString('base64'))
      .then((k) => Buffer.from(k, 'base64'))
      .catch((err: unknown) => {
        this.tokenKey = undefined;
        throw err;
      }));
  }

  async unsubscribeToken(claim: UnsubscribeClaim): Promise<string> {
    return signUnsubscribe(await this.unsubscribeKey(), claim);
  }

  /**
   * Records changes in the caller's transaction: each replaces the current consent unless the store
   * holds a later one (customer-made changes always do, dated now or after what is stored), and is
   * kept in the history when the status changes. Takes the customers' messaging locks.
   */
  async apply(em: EntityManager, writes: readonly ConsentWrite[]): Promise<AppliedWrite[]> {
    if (!writes.length) return [];
    const customerIds = [...new Set(writes.map((w) => w.customerId))];
    await lockMessagingOf(em, customerIds);
    const rows = await sql<{ customerId: string; channel: string; kind: string; status: StoredStatus; changedAt: Date }>(
      em,
      `select customer_id as "customerId", channel, kind, status, changed_at as "changedAt" from customer_consent where customer_id = any($1) order by 1, 2, 3 for update`,
      [customerIds],
    );
    const state = new Map(rows.map((r) => [key(r.customerId, r.channel, r.kind), { status: r.status, changedAt: r.changedAt }]));
    const current: ConsentWrite[] = [];
    const history: (ConsentWrite & { id: string; previous: ConsentStatus })[] = [];
    const results = writes.map((w): AppliedWrite => {
      const k = key(w.customerId, w.channel, w.kind);
      const now = state.get(k);
      const previous: ConsentStatus = now?.status ?? 'never_subscribed';
      const forced = CUSTOMER_METHODS.has(w.method);
      if (now && !forced && w.at < now.changedAt) return { applied: false, previous, changed: false };
      if (now?.status === w.status) return { applied: true, previous, changed: false };
      const at = forced && now && now.changedAt > w.at ? now.changedAt : w.at;
      const write = { ...w, at };
      state.set(k, { status: w.status, changedAt: at });
      current.push(write);
      history.push({ ...write, id: newId('consentChange'), previous });
      return { applied: true, previous, changed: true };
    });
    // The last write of each consent is its current state.
    const last = new Map(current.map((w) => [key(w.customerId, w.channel, w.kind), w]));
    await CURRENT.run(em, [...last.values()]);
    await CHANGES.run(em, history);
    return results;
  }

  /**
   * The real platform's `customer-subscriptions` (REST and GraphQL): the body is checked whole,
   * the customers found by email and phone (created when missing, as custom events create them),
   * each given subscription recorded unless the store holds a later change. Customers erased with
   * REFUSE are refused (409), with DROP nothing is recorded for them.
   */
  async updateSubscriptions(storeId: string, body: unknown, by: { method: 'API' | 'IMPORT' | 'DASHBOARD'; actor: string }): Promise<CustomerSubscriptionsResult & { customerIds: string[] }> {
    const read = readSubscriptions(body);
    if (!read.ok) throw invalid('validation-failed', 'The subscription update is invalid.', read.errors);
    const { email, sms } = read.value;
    await this.deps.suppressions.ready();
    return this.em().transactional(async (em) => {
      const now = new Date();
      const identity = { email: email?.address, phoneNumber: sms?.address };
      const [emailErased, smsErased] = await this.deps.suppressions.erasedAmong(em, storeId, [{ email: identity.email }, { phoneNumber: identity.phoneNumber }]);
      const refused = [emailErased === 'REFUSE' && email ? '/email/email' : null, smsErased === 'REFUSE' && sms ? '/sms/phoneNumber' : null].filter((p): p is string => !!p);
      if (refused.length) {
        throw new AppError('conflict', 'customer-erased', 'The customer was erased; the store refuses changes about them.', { errors: refused.map((pointer) => ({ pointer, detail: 'names an erased customer' })) });
      }
      const wanted = { email: email && !emailErased ? email.address : undefined, phoneNumber: sms && !smsErased ? sms.address : undefined };
      const targets = new Map<ConsentChannel, CustomerRow>();
      if (wanted.email || wanted.phoneNumber) {
        const [profile] = await resolveCustomers(em, [{ storeId, customer: wanted }], now);
        if (wanted.email) targets.set('email', profile!);
        if (wanted.phoneNumber) {
          // The number belongs to another profile when the email's profile could not take it.
          const owner = profile!.phoneNumber === wanted.phoneNumber ? profile! : await this.byPhone(em, storeId, wanted.phoneNumber);
          targets.set('sms', owner ?? profile!);
        }
      }
      const given: { change: RequestedChange; customer: CustomerRow; address: string }[] = [];
      for (const part of [email, sms]) {
        for (const change of part?.changes ?? []) {
          const customer = targets.get(change.channel);
          if (customer) given.push({ change, customer, address: part!.address });
        }
      }
      const results = await this.apply(
        em,
        given.map(({ change, customer, address }) => ({
          storeId,
          customerId: customer.id,
          channel: change.channel,
          kind: change.kind,
          status: change.status,
          at: change.at && change.at < now ? change.at : now,
          method: by.method,
          actor: by.actor,
          address,
          detail: change.at && change.at > now ? `updatedAt ${change.at.toISOString()} was ahead of the service's clock` : null,
        })),
      );
      await this.consentEvents(
        em,
        storeId,
        given.flatMap(({ change, customer }, i) => (change.triggerAutomations && change.kind === 'marketing' && results[i]!.changed ? [{ customerId: customer.id, change, at: change.at ?? now }] : [])),
        now,
      );
      const updated: CustomerSubscriptionsResult['updatedSubscriptions'] = {};
      const outcome = (change: RequestedChange) => {
        const i = given.findIndex((g) => g.change === change);
        return i >= 0 && results[i]!.applied;
      };
      if (email) updated.email = Object.fromEntries(email.changes.map((c) => [c.kind, outcome(c)]));
      if (sms) updated.sms = Object.fromEntries(sms.changes.map((c) => [c.kind, outcome(c)]));
      const all = [...(email?.changes ?? []), ...(sms?.changes ?? [])].map(outcome);
      const message = all.every(Boolean)
        ? 'Customer subscriptions updated successfully'
        : all.some(Boolean)
          ? 'Customer subscriptions updated; some were not, as the store holds later changes or the customer was erased'
          : 'No subscription was updated: the store holds later changes, or the customer was erased';
      return { success: true, message, updatedSubscriptions: updated, customerIds: [...new Set([...targets.values()].map((c) => c.id))] };
    });
  }

  /**
   * `triggerAutomations`: an event in the customer's history (`Subscribed to Email Marketing`, ...),
   * accepted into the inbox in the change's transaction, so flows triggered by it start once it is processed.
   */
  private async consentEvents(em: EntityManager, storeId: string, changes: { customerId: string; change: RequestedChange; at: Date }[], now: Date): Promise<void> {
    if (!changes.length) return;
    const jobs = changes.map(
      ({ customerId, change, at }): CustomEventJob => ({
        eventId: newId('event'),
        storeId,
        receivedAt: now.toISOString(),
        event: {
          eventName: isSubscribed(change.status) ? CONSENT_EVENT_NAMES[change.channel].on : CONSENT_EVENT_NAMES[change.channel].off,
          customer: { id: customerId },
          data: { channel: change.channel, status: change.status, method: 'API' },
          eventTimestamp: at.toISOString(),
        },
      }),
    );
    await this.deps.inbox.accept(jobs, em);
  }

  private async byPhone(em: EntityManager, storeId: string, phone: string): Promise<CustomerRow | null> {
    const [row] = await sql<CustomerRow>(em, `select ${customerColumns()} from customer where store_id = $1 and phone_number = $2`, [storeId, phone]);
    return row ?? null;
  }

  /** A dashboard's change of one consent of a known customer (any channel and kind). */
  async set(storeId: string, customerId: string, change: { channel: ConsentChannel; kind: ConsentKind; status: StoredStatus; at?: Date; method: ConsentMethod; actor: string }): Promise<AppliedWrite> {
    const now = new Date();
    if (change.at && change.at.getTime() > now.getTime() + 5 * 60_000) throw invalid('validation-failed', 'The change is dated in the future.', [{ pointer: '/input/at', detail: 'must not be in the future' }]);
    return this.em().transactional(async (em) => {
      await lockStoresShared(em, [storeId]);
      const customer = await this.lockCustomer(em, storeId, customerId);
      const [result] = await this.apply(em, [
        {
          storeId,
          customerId: customer.id,
          channel: change.channel,
          kind: change.kind,
          status: change.status,
          at: change.at && change.at < now ? change.at : now,
          method: change.method,
          actor: change.actor,
          address: change.channel === 'email' ? customer.email : customer.phoneNumber,
        },
      ]);
      return result!;
    });
  }

  /** The customer of the store by id (a merged id answers as its surviving profile), row-locked; 404 otherwise. */
  private async lockCustomer(em: EntityManager, storeId: string, customerId: string): Promise<CustomerRow> {
    const [row] = await sql<CustomerRow>(
      em,
      `select ${customerColumns()} from customer where store_id = $1 and id = coalesce((select into_id from customer_merge where merged_id = $2 and store_id = $1), $2) for update`,
      [storeId, customerId],
    );
    if (!row) throw notFound('not-found', `No customer ${customerId} in this store.`);
    return row;
  }

  /** Suppresses a channel of a customer (nothing is sent on it, transactional included) or lifts it. */
  async suppress(storeId: string, customerId: string, channel: ConsentChannel, reason: string | null): Promise<void> {
    await this.em().transactional(async (em) => {
      await lockStoresShared(em, [storeId]);
      const customer = await this.lockCustomer(em, storeId, customerId);
      await lockMessagingOf(em, [customer.id]);
      if (reason === null) await sql(em, 'delete from customer_channel_suppression where customer_id = $1 and channel = $2', [customer.id, channel]);
      else {
        await sql(
          em,
          `insert into customer_channel_suppression (customer_id, store_id, channel, reason) values ($1, $2, $3, $4)
           on conflict (customer_id, channel) do update set reason = excluded.reason, created_at = now()`,
          [customer.id, storeId, channel, reason],
        );
      }
    });
  }

  /** What the unsubscribe page shows for a token: null when the token is not one this service signed. */
  async unsubscribeTarget(token: string, storeName: (storeId: string) => Promise<string | null>): Promise<UnsubscribeTarget | null> {
    const claim = verifyUnsubscribe(await this.unsubscribeKey(), token);
    if (!claim) return null;
    const name = await storeName(claim.storeId);
    if (name === null) return null;
    const em = this.em();
    const [row] = await sql<{ email: string | null; phoneNumber: string | null; status: StoredStatus | null }>(
      em,
      `select c.email, c.phone_number as "phoneNumber", k.status from customer c
         left join customer_consent k on k.customer_id = c.id and k.channel = $3 and k.kind = 'marketing'
        where c.store_id = $1 and c.id = coalesce((select into_id from customer_merge where merged_id = $2 and store_id = $1), $2)`,
      [claim.storeId, claim.customerId, claim.channel],
    );
    // A customer since erased: nothing is sent to them; the page says they are unsubscribed.
    if (!row) return { claim, storeName: name, address: null, status: 'unsubscribed' };
    return { claim, storeName: name, address: claim.channel === 'email' ? row.email : row.phoneNumber, status: row.status ?? 'never_subscribed' };
  }

  /**
   * Unsubscribes the token's customer from marketing on the token's channel (the link's page, or
   * a mail client's one-click POST). Idempotent; a customer erased since records nothing.
   */
  async unsubscribe(claim: UnsubscribeClaim, method: 'UNSUBSCRIBE_LINK' | 'ONE_CLICK'): Promise<void> {
    await this.em().transactional(async (em) => {
      await lockStoresShared(em, [claim.storeId]);
      const [customer] = await sql<CustomerRow>(
        em,
        `select ${customerColumns()} from customer where store_id = $1 and id = coalesce((select into_id from customer_merge where merged_id = $2 and store_id = $1), $2) for update`,
        [claim.storeId, claim.customerId],
      );
      if (!customer) return;
      await this.apply(em, [
        {
          storeId: claim.storeId,
          customerId: customer.id,
          channel: claim.channel,
          kind: 'marketing',
          status: 'unsubscribed',
          at: new Date(),
          method,
          actor: 'customer',
          address: claim.channel === 'email' ? customer.email : customer.phoneNumber,
        },
      ]);
    });
  }

  /** Makes (or replaces) the store's inbound SMS secret; the only time it is shown. */
  async rotateInboundSmsSecret(storeId: string): Promise<string> {
    const secret = `smsin_${randomBytes(24).toString('base64url')}`;
    await sql(
      this.em(),
      `insert into messaging_settings (store_id, inbound_sms_secret_hash) values ($1, $2)
       on conflict (store_id) do update set inbound_sms_secret_hash = excluded.inbound_sms_secret_hash, updated_at = now()`,
      [storeId, secretHash(secret).toString('hex')],
    );
    return secret;
  }

  /** Whether `secret` is the store's inbound SMS secret (compared in constant time; false for a store without one). */
  async inboundSmsAllowed(storeId: string, secret: string): Promise<boolean> {
    const [row] = await sql<{ hash: string | null }>(this.em(), 'select inbound_sms_secret_hash as hash from messaging_settings where store_id = $1', [storeId]);
    const expected = Buffer.from(row?.hash ?? '0'.repeat(64), 'hex');
    const ok = timingSafeEqual(secretHash(secret), expected);
    return ok && Boolean(row?.hash);
  }

  /**
   * An inbound SMS: a stop keyword unsubscribes the number from SMS (marketing and transactional,
   * as carriers require); a start keyword subscribes it back to both. The profile with the number
   * is created when the store has none, so a later import cannot forget the opt-out. Returns what
   * was done (null: the text was no keyword, or the number is no phone number or erased).
   */
  async inboundSms(storeId: string, phone: string, keyword: { action: 'stop' | 'start'; word: string }): Promise<'stopped' | 'started' | null> {
    await this.deps.suppressions.ready();
    return this.em().transactional(async (em) => {
      const [erased] = await this.deps.suppressions.erasedAmong(em, storeId, [{ phoneNumber: phone }]);
      if (erased) return null;
      const [customer] = await resolveCustomers(em, [{ storeId, customer: { phoneNumber: phone } }], new Date());
      const status: StoredStatus = keyword.action === 'stop' ? 'unsubscribed' : 'subscribed';
      await this.apply(
        em,
        CONSENT_KINDS.map((kind) => ({
          storeId,
          customerId: customer!.id,
          channel: 'sms' as const,
          kind,
          status,
          at: new Date(),
          method: 'SMS_KEYWORD' as const,
          actor: 'customer',
          address: phone,
          detail: `replied ${keyword.word}`,
        })),
      );
      return keyword.action === 'stop' ? 'stopped' : 'started';
    });
  }

  /** Current consents of customers (only those recorded; absent ones are never subscribed). */
  async current(customerIds: readonly string[], em: EntityManager = this.em()): Promise<ConsentRow[]> {
    if (!customerIds.length) return [];
    return sql<ConsentRow>(
      em,
      `select customer_id as "customerId", channel, kind, status, method, changed_at as "changedAt" from customer_consent where customer_id = any($1)`,
      [customerIds],
    );
  }

  async suppressions(customerIds: readonly string[], em: EntityManager = this.em()): Promise<SuppressionRow[]> {
    if (!customerIds.length) return [];
    return sql<SuppressionRow>(
      em,
      `select customer_id as "customerId", channel, reason, created_at as "createdAt" from customer_channel_suppression where customer_id = any($1) order by channel`,
      [customerIds],
    );
  }

  /** A customer's consent changes, newest first. */
  async history(customerId: string, page: PageRequest): Promise<Page<ConsentChangeRow>> {
    const c = new Conditions();
    c.and(`customer_id = ${c.p(customerId)}`);
    return keysetPage<ConsentChangeRow>(this.em(), { columns: CHANGE_COLUMNS, from: 'consent_change', where: c, sortColumn: 'recorded_at', idColumn: 'id', page });
  }

  /** What the sends of a batch need, read in its transaction (after its messaging locks). */
  async permissions(em: EntityManager, customerIds: readonly string[]): Promise<Map<string, SendPermissions>> {
    const out = new Map<string, SendPermissions>(customerIds.map((id) => [id, { consent: new Map(), suppression: new Map() }]));
    for (const row of await this.current(customerIds, em)) out.get(row.customerId)?.consent.set(consentKey(row.channel, row.kind), row.status);
    for (const row of await this.suppressions(customerIds, em)) out.get(row.customerId)?.suppression.set(row.channel, row.reason);
    return out;
  }
}

/** Every (channel, kind) with its status, never subscribed where nothing is recorded (dashboards' `Customer.consent`). */
export function consentMatrix(rows: readonly ConsentRow[]): { channel: ConsentChannel; kind: ConsentKind; status: ConsentStatus; method: ConsentMethod | null; changedAt: Date | null }[] {
  return CONSENT_CHANNELS.flatMap((channel) =>
    CONSENT_KINDS.map((kind) => {
      const row = rows.find((r) => r.channel === channel && r.kind === kind);
      return { channel, kind, status: row?.status ?? 'never_subscribed', method: row?.method ?? null, changedAt: row?.changedAt ?? null };
    }),
  );
}
