import { createHmac, randomBytes } from 'node:crypto';
import type { AccountsService } from '../../../platform/accounts/accounts.service.js';
import { BulkInsert } from '../../../platform/db/bulk-insert.js';
import { sql, type EntityManager, type Orm } from '../../../platform/db/orm.js';
import type { SuppressionMode } from '../../../platform/privacy/participants.js';
import type { ErasureSubject } from '../../../platform/privacy/subject.js';
import type { CustomEventJob } from '../event-ingestion.service.js';
import type { EventCustomer } from '../custom-event.schemas.js';

/** The advisory lock that orders event processing (shared) and a store's erasure (exclusive). */
const lockKey = (storeId: string) => `privacy-erasure:${storeId}`;

/** Takes the erasure lock of each store, shared, in a fixed order (event processing: before it looks at suppressions or customers). */
export async function lockStoresShared(em: EntityManager, storeIds: readonly string[]): Promise<void> {
  await sql(em, 'select pg_advisory_xact_lock_shared(hashtext(k)) from unnest($1::text[]) as k', [[...new Set(storeIds)].sort().map(lockKey)]);
}

/** The erasure's own: waits for the store's events in flight to commit, and holds new ones until it commits. */
export async function lockStoreExclusive(em: EntityManager, storeId: string): Promise<void> {
  await sql(em, 'select pg_advisory_xact_lock(hashtext($1))', [lockKey(storeId)]);
}

interface Suppression {
  storeId: string;
  hash: string;
  erasureId: string;
  mode: SuppressionMode;
}

const SUPPRESSIONS = new BulkInsert<Suppression>(
  'customer_suppression',
  [
    { name: 'store_id', type: 'text', value: (s) => s.storeId },
    { name: 'hash', type: 'text', value: (s) => s.hash },
    { name: 'erasure_id', type: 'text', value: (s) => s.erasureId },
    { name: 'mode', type: 'text', value: (s) => s.mode },
  ],
  { tail: 'on conflict (store_id, hash) do update set erasure_id = excluded.erasure_id, mode = excluded.mode, created_at = now()' },
);

/**
 * The identifiers of erased customers, kept as keyed hashes (HMAC-SHA256 under a key made once per
 * database and kept in the platform's settings): nothing readable, and a copy of this table alone
 * cannot be matched against a list of addresses. Events naming one are dropped at processing (they
 * re-create nothing), and refused at acceptance when the erasure asked for REFUSE.
 */
export class CustomerSuppressions {
  private key: Promise<Buffer> | undefined;

  constructor(
    private readonly orm: Orm,
    private readonly accounts: AccountsService,
  ) {}

  /**
   * Reads the key (once per process). The key lives in the platform's settings, which a query made
   * inside a subgraph's transaction cannot reach: callers that hash within one call this first.
   */
  ready(): Promise<unknown> {
    return this.hashKey();
  }

  private hashKey(): Promise<Buffer> {
    return (this.key ??= this.accounts
      .sharedSetting('privacy_suppression_key', () => randomBytes(32).toString('base64'))
      .then((k) => Buffer.from(k, 'base64'))
      .catch((err: unknown) => {
        this.key = undefined; // a failed read is retried by the next caller
        throw err;
      }));
  }

  /** The hashes of a customer's identifiers (emails compare lower-cased, as everywhere). */
  async hashes(customer: Pick<EventCustomer, 'id' | 'email' | 'phoneNumber'>): Promise<string[]> {
    const key = await this.hashKey();
    const values = [customer.id && `id:${customer.id}`, customer.email && `email:${customer.email.toLowerCase()}`, customer.phoneNumber && `phone:${customer.phoneNumber}`];
    return values.filter((v): v is string => !!v).map((v) => createHmac('sha256', key).update(v).digest('base64url'));
  }

  /** Which of (store, hash) pairs are suppressed, with their mode. */
  private async find(em: EntityManager, pairs: { storeId: string; hash: string }[]): Promise<Map<string, SuppressionMode>> {
    if (!pairs.length) return new Map();
    const rows = await sql<{ storeId: string; hash: string; mode: SuppressionMode }>(
      em,
      `select s.store_id as "storeId", s.hash, s.mode from customer_suppression s join unnest($1::text[], $2::text[]) as k(store_id, hash) on s.store_id = k.store_id and s.hash = k.hash`,
      [pairs.map((p) => p.storeId), pairs.map((p) => p.hash)],
    );
    return new Map(rows.map((r) => [`${r.storeId}\u0000${r.hash}`, r.mode]));
  }

  /**
   * Event processing, first thing in its transaction: the erasure lock of the batch's stores
   * (shared), then the events whose customer was erased. The lock makes an erasure wait for the
   * events in flight and the events after it see its suppressions, so none re-creates the customer.
   */
  async suppressedIn(em: EntityManager, jobs: readonly CustomEventJob[]): Promise<Set<string>> {
    if (!jobs.length) return new Set();
    await lockStoresShared(em, jobs.map((j) => j.storeId));
    const keyed = await Promise.all(jobs.map(async (j) => ({ job: j, hashes: await this.hashes(j.event.customer) })));
    const found = await this.find(em, keyed.flatMap(({ job, hashes }) => hashes.map((hash) => ({ storeId: job.storeId, hash }))));
    return new Set(keyed.filter(({ job, hashes }) => hashes.some((h) => found.has(`${job.storeId}\u0000${h}`))).map(({ job }) => job.eventId));
  }

  /**
   * A synchronous write about one customer (the customer upsert): the store's erasure lock
   * (shared), then which of the customer's identifiers, if any, an erasure suppressed.
   */
  async suppressedIdentifier(em: EntityManager, storeId: string, customer: Pick<EventCustomer, 'email' | 'phoneNumber'>): Promise<'email' | 'phoneNumber' | undefined> {
    await lockStoresShared(em, [storeId]);
    for (const field of ['email', 'phoneNumber'] as const) {
      if (!customer[field]) continue;
      const [hash] = await this.hashes({ [field]: customer[field] });
      if ((await this.find(em, [{ storeId, hash: hash! }])).size) return field;
    }
    return undefined;
  }

  private pending: { storeId: string; customers: EventCustomer[]; resolve(refused: boolean[]): void; reject(err: unknown): void }[] = [];

  /**
   * Event acceptance: which of the events name a customer erased with REFUSE. The requests of one
   * turn of the event loop share one query, so the hot path pays one round trip per batch.
   */
  refused(storeId: string, customers: EventCustomer[]): Promise<boolean[]> {
    return new Promise((resolve, reject) => {
      if (this.pending.push({ storeId, customers, resolve, reject }) === 1) setImmediate(() => void this.flushRefusals());
    });
  }

  private async flushRefusals(): Promise<void> {
    const batch = this.pending.splice(0);
    try {
      const keyed = await Promise.all(batch.map((r) => Promise.all(r.customers.map((c) => this.hashes(c)))));
      const found = await this.find(this.orm.em.fork(), batch.flatMap((r, i) => keyed[i]!.flatMap((hashes) => hashes.map((hash) => ({ storeId: r.storeId, hash })))));
      batch.forEach((r, i) => r.resolve(keyed[i]!.map((hashes) => hashes.some((h) => found.get(`${r.storeId}\u0000${h}`) === 'REFUSE'))));
    } catch (err) {
      for (const r of batch) r.reject(err);
    }
  }

  /**
   * Writers of customers other than event processing (consent changes): the mode each identity was
   * erased with (null: not erased), under the store's erasure lock, shared, like event processing.
   */
  async erasedAmong(em: EntityManager, storeId: string, customers: readonly Pick<EventCustomer, 'id' | 'email' | 'phoneNumber'>[]): Promise<(SuppressionMode | null)[]> {
    await lockStoresShared(em, [storeId]);
    const keyed = await Promise.all(customers.map((c) => this.hashes(c)));
    const found = await this.find(em, keyed.flatMap((hashes) => hashes.map((hash) => ({ storeId, hash }))));
    return keyed.map((hashes) => {
      const modes = hashes.flatMap((h) => found.get(`${storeId}\u0000${h}`) ?? []);
      return modes.includes('REFUSE') ? 'REFUSE' : (modes[0] ?? null);
    });
  }

  /** An erasure's: every identifier of the subject, under the store's lock (the caller holds it). */
  async add(em: EntityManager, storeId: string, subject: ErasureSubject, erasureId: string, mode: SuppressionMode): Promise<number> {
    const customers = [...subject.customerIds.map((id) => ({ id })), ...subject.emails.map((email) => ({ email })), ...subject.phones.map((phoneNumber) => ({ phoneNumber }))];
    const hashes = (await Promise.all(customers.map((c) => this.hashes(c)))).flat();
    await SUPPRESSIONS.run(em, hashes.map((hash) => ({ storeId, hash, erasureId, mode })));
    return hashes.length;
  }
}
