import { BulkInsert } from '../../platform/db/bulk-insert.js';
import { sql, type EntityManager, type Orm } from '../../platform/db/orm.js';
import { onPrimary, type HeavyReads } from '../../platform/db/replica.js';
import { publish } from '../../platform/jobs/outbox.js';
import { CustomEventCreated, type CustomEventDocument, type CustomerDocument } from './custom-event.events.js';
import { Conditions, keysetPage } from '../../platform/db/keyset.js';
import type { Page, PageRequest } from '../../platform/api/pagination.js';
import { CustomerRaceError, resolveCustomers } from './customers/customer-resolution.service.js';
import type { CustomerRow } from './customers/customer.rows.js';
import { EVENT_COLUMNS, type CustomEventRow, type EventPropertyRow } from './custom-event.rows.js';
import { applyDataRules } from './custom-event.rules.js';
import type { CustomEventJob } from './event-ingestion.service.js';
import type { CustomerSuppressions } from './customers/customer-suppression.service.js';

/** `suppressed`: the event names an erased customer; it is dropped (customer-suppression.service.ts). */
export type ProcessOutcome = 'stored' | 'duplicate' | 'already-processed' | 'suppressed';

// The primary key decides: a concurrent transaction with the same key waits for this one and then finds it taken.
const UNIQUE_ID_CLAIMS = new BulkInsert<CustomEventJob>(
  'custom_event_unique_id',
  [
    { name: 'store_id', type: 'text', value: (j) => j.storeId },
    { name: 'unique_id', type: 'text', value: (j) => j.event.uniqueId },
    { name: 'event_id', type: 'text', value: (j) => j.eventId },
  ],
  { tail: 'on conflict do nothing returning event_id as "eventId"' },
);

const EVENT_PROPERTIES = new BulkInsert<[storeId: string, eventName: string, key: string, type: string]>(
  'event_property',
  [
    { name: 'store_id', type: 'text', value: (e) => e[0] },
    { name: 'event_name', type: 'text', value: (e) => e[1] },
    { name: 'key', type: 'text', value: (e) => e[2] },
    { name: 'type', type: 'text', value: (e) => e[3] },
  ],
  { tail: 'on conflict do nothing' },
);

/** Job data that cannot be processed whatever the retries (it did not come from the ingestion path). */
export class UnprocessableJobError extends Error {}

/** Whether data is an accepted event as ingestion stores it. */
export function isCustomEventJob(job: unknown): job is CustomEventJob {
  const j = job as Partial<CustomEventJob> | null;
  return Boolean(j && typeof j.eventId === 'string' && typeof j.storeId === 'string' && typeof j.receivedAt === 'string' && typeof j.event?.eventName === 'string' && typeof j.event.customer === 'object');
}

function assertJob(job: unknown): asserts job is CustomEventJob {
  if (!isCustomEventJob(job)) throw new UnprocessableJobError('job data is not a custom event job');
}

/** The published shape of a stored event (its declared contract: a field added here must be declared there). */
export function eventPayload(row: CustomEventRow): CustomEventDocument {
  return {
    id: row.id,
    eventName: row.eventName,
    eventTimestamp: row.eventTimestamp.toISOString(),
    value: row.value,
    valueCurrency: row.valueCurrency,
    uniqueId: row.uniqueId,
    data: row.data,
    extra: row.extra,
    customerId: row.customerId,
    createdAt: row.createdAt.toISOString(),
  };
}

export function customerPayload(row: CustomerRow): CustomerDocument {
  return {
    id: row.id,
    email: row.email,
    phoneNumber: row.phoneNumber,
    firstName: row.firstName,
    lastName: row.lastName,
    location: row.location,
    customFields: row.customFields,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * Processing of accepted events (a pg-boss job), and the reads of stored
 * events. Every step of one event runs in the caller's transaction, so an
 * event is either fully applied (customer, event row, catalogue, outbox event)
 * or not at all; the event id chosen at ingestion makes a retry of an
 * already-committed job a no-op.
 */
export class CustomEventService {
  /** Catalogue entries known to be stored, so the hot path skips the upsert. */
  private readonly knownProperties = new Set<string>();

  constructor(
    private readonly orm: Orm,
    /** Erased customers' identifiers; the subgraph always passes them (tests that drive processing by hand may not). */
    private readonly suppressions?: CustomerSuppressions,
    /** Where the store-wide scans go (exports' mentions): the read replica when there is a usable one. */
    private readonly heavyReads: HeavyReads = onPrimary(orm),
  ) {}

  private em(): EntityManager {
    return this.orm.em.fork();
  }

  /** Runs `work` in one transaction; catalogue entries it wrote become "known" only once committed. */
  async inTransaction<T>(work: (em: EntityManager, learned: string[]) => Promise<T>): Promise<T> {
    await this.suppressions?.ready();
    const learned: string[] = [];
    const result = await this.em().transactional((em) => work(em, learned));
    for (const key of learned) this.knownProperties.add(key);
    return result;
  }

  /**
   * Applies a batch of jobs' events, in order, inside the caller's transaction
   * (`inTransaction`). Set-based where order does not matter: one query finds
   * events already applied (a retried job), one insert claims the uniqueIds,
   * one inserts the events, one the catalogue entries, one the outbox events
   * (built here from what was stored, not read back). Customers are resolved
   * event by event, since a later event of the batch may patch what an
   * earlier one created. `onOrdered` is called once the transaction holds the
   * locks that order it after earlier transactions (its uniqueId claims and
   * its customers' rows).
   */
  async processBatch(em: EntityManager, jobs: unknown[], learned: string[], onOrdered?: () => void): Promise<ProcessOutcome[]> {
    jobs.forEach(assertJob);
    const batch = jobs as CustomEventJob[];
    const outcomes = new Map<string, ProcessOutcome>();
    // The transaction's time is the stored events' created_at (the column's default).
    const [head] = await sql<{ now: Date; applied: string[] }>(em, `select transaction_timestamp() as now, array(select id from custom_event where id = any($1)) as applied`, [
      batch.map((j) => j.eventId),
    ]);
    const now = head!.now;
    for (const id of head!.applied) outcomes.set(id, 'already-processed');
    for (const id of (await this.suppressions?.suppressedIn(em, batch.filter((j) => !outcomes.has(j.eventId)))) ?? []) outcomes.set(id, 'suppressed');
    const pending = batch.filter((j) => !outcomes.has(j.eventId));

    // Within the batch, the first job with a key wins.
    const keyed = pending.filter((j) => j.event.uniqueId !== undefined);
    if (keyed.length) {
      const claimed = new Set((await UNIQUE_ID_CLAIMS.run<{ eventId: string }>(em, keyed)).map((r) => r.eventId));
      for (const j of keyed) if (!claimed.has(j.eventId)) outcomes.set(j.eventId, 'duplicate');
    }
    const toStore = pending.filter((j) => !outcomes.has(j.eventId));
    if (!toStore.length) {
      onOrdered?.();
      return batch.map((j) => outcomes.get(j.eventId)!);
    }

    const customers = new Map<string, CustomerRow>();
    const resolved = await this.resolveCustomers(em, toStore);
    // This transaction now holds every lock that orders it after earlier ones (uniqueIds, customers).
    onOrdered?.();
    toStore.forEach((job, i) => customers.set(job.eventId, resolved[i]!));
    const rows = toStore.map((job) => ({ job, stored: applyDataRules(job.event.data) }));
    const events = rows.map(({ job, stored }): CustomEventRow => ({
      id: job.eventId,
      storeId: job.storeId,
      customerId: customers.get(job.eventId)!.id,
      eventName: job.event.eventName,
      eventTimestamp: new Date(job.event.eventTimestamp ?? job.receivedAt),
      value: job.event.value ?? null,
      valueCurrency: job.event.valueCurrency ?? null,
      uniqueId: job.event.uniqueId ?? null,
      data: stored.data,
      extra: stored.extra ?? null,
      createdAt: now,
    }));
    await sql(
      em,
      `insert into custom_event (id, store_id, customer_id, event_name, event_timestamp, value, value_currency, unique_id, data, data_dates, extra, received_at, backfill)
       select id, store_id, customer_id, event_name, event_timestamp, value, value_currency, unique_id, data, data_dates, extra, received_at, backfill
         from jsonb_to_recordset($1::jsonb) as r(id text, store_id text, customer_id text, event_name text, event_timestamp timestamptz, value numeric,
              value_currency text, unique_id text, data jsonb, data_dates jsonb, extra jsonb, received_at timestamptz, backfill boolean)`,
      [
        JSON.stringify(
          events.map((e, i) => ({
            id: e.id,
            store_id: e.storeId,
            customer_id: e.customerId,
            event_name: e.eventName,
            event_timestamp: e.eventTimestamp,
            value: e.value,
            value_currency: e.valueCurrency,
            unique_id: e.uniqueId,
            data: e.data,
            data_dates: rows[i]!.stored.dataDates,
            extra: e.extra,
            received_at: rows[i]!.job.receivedAt,
            backfill: rows[i]!.job.event.backfill === true,
          })),
        ),
      ],
    );

    // Catalogue entries not known yet, sorted so concurrent batches take their locks in one order.
    const fresh = new Map<string, [string, string, string, string]>();
    for (const { job, stored } of rows) {
      for (const p of stored.properties) {
        const key = `${job.storeId}\u0000${job.event.eventName}\u0000${p.key}\u0000${p.type}`;
        if (!this.knownProperties.has(key)) fresh.set(key, [job.storeId, job.event.eventName, p.key, p.type]);
      }
    }
    if (fresh.size) {
      await EVENT_PROPERTIES.run(em, [...fresh.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, e]) => e));
      learned.push(...fresh.keys());
    }

    await publish(
      em,
      CustomEventCreated,
      // What an event causes (webhook deliveries, flow runs) continues the trace of the request that sent it.
      events.map((e, i) => ({ storeId: e.storeId, subjectId: e.id, trace: rows[i]!.job.trace, data: { event: eventPayload(e), customer: customerPayload(customers.get(e.id)!) } })),
    );
    for (const job of toStore) outcomes.set(job.eventId, 'stored');
    return batch.map((j) => outcomes.get(j.eventId)!);
  }

  /** Identity resolution for the batch; a creation race with another transaction is resolved again (the loser patches the winner). */
  private async resolveCustomers(em: EntityManager, jobs: CustomEventJob[]): Promise<CustomerRow[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await resolveCustomers(em, jobs.map((j) => ({ storeId: j.storeId, customer: j.event.customer })), new Date());
      } catch (err) {
        if (!(err instanceof CustomerRaceError) || attempt >= 3) throw err;
      }
    }
  }

  async findByIds(ids: readonly string[]): Promise<CustomEventRow[]> {
    return sql<CustomEventRow>(this.em(), `select ${EVENT_COLUMNS} from custom_event where id = any($1)`, [ids]);
  }

  /** A customer's events, newest first, optionally of one name. */
  async listForCustomer(customerId: string, eventName: string | undefined, page: PageRequest): Promise<Page<CustomEventRow>> {
    const c = new Conditions();
    return this.listWhere(c.and(`customer_id = ${c.p(customerId)}`), { eventName }, page);
  }

  /** Other customers' events of the store whose properties mention one of a person's identifiers (`pattern`: platform/privacy/subject.ts), newest first. */
  async listMentioning(storeId: string, exceptCustomerId: string | null, pattern: string, page: PageRequest): Promise<Page<CustomEventRow>> {
    const c = new Conditions();
    c.and(`store_id = ${c.p(storeId)}`).and(`customer_id is distinct from ${c.p(exceptCustomerId)}`);
    const p = c.p(pattern);
    // Reads every event of the store: a heavy read.
    return this.heavyReads.run((orm) => this.listWhere(c.and(`(data::text ~* ${p} or coalesce(extra::text, '') ~* ${p})`), {}, page, orm.em.fork()));
  }

  /** A store's events, newest first, by name and time range (`since` inclusive, `until` exclusive). */
  async listForStore(storeId: string, filters: { eventName?: string; since?: Date; until?: Date }, page: PageRequest): Promise<Page<CustomEventRow>> {
    const c = new Conditions();
    return this.listWhere(c.and(`store_id = ${c.p(storeId)}`), filters, page);
  }

  private async listWhere(c: Conditions, filters: { eventName?: string; since?: Date; until?: Date }, page: PageRequest, em: EntityManager = this.em()): Promise<Page<CustomEventRow>> {
    c.when(filters.eventName, (v) => `event_name = ${v}`)
      .when(filters.since, (v) => `event_timestamp >= ${v}`)
      .when(filters.until, (v) => `event_timestamp < ${v}`);
    return keysetPage<CustomEventRow>(em, { columns: EVENT_COLUMNS, from: 'custom_event', where: c, sortColumn: 'event_timestamp', idColumn: 'id', page });
  }

  /** The property catalogue: every (event name, key, type) seen in the store. */
  async properties(storeId: string, eventName: string | undefined): Promise<EventPropertyRow[]> {
    return sql<EventPropertyRow>(
      this.em(),
      `select event_name as "eventName", key, type, first_seen_at as "firstSeenAt" from event_property
        where store_id = $1 and ($2::text is null or event_name = $2) order by event_name, key, type`,
      [storeId, eventName ?? null],
    );
  }
}
