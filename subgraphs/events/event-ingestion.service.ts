import { sql, type Orm } from '../../platform/db/orm.js';
import { newId } from '../../platform/ids.js';
import type { Logger } from '../../platform/observability/logger.js';
import { customEventsAccepted, customEventsRejected } from '../../platform/observability/metrics.js';
import type { RateLimitDecision } from '../../platform/api/rate-limit.js';
import { currentTrace, type Traced } from '../../platform/observability/tracing.js';
import type { ValidEvent } from './custom-event.schemas.js';

/**
 * The name of the custom events' work in pg-boss: its dead letters (`custom-events-dead`), and a queue
 * whose jobs (retried dead letters, events queued before the inbox) the workers move into the inbox.
 */
export const CUSTOM_EVENTS_QUEUE = 'custom-events';

/** What an accepted event carries: the event as validated, with the id its stored row will have, and the accepting request's trace. */
export interface CustomEventJob extends Traced {
  eventId: string;
  storeId: string;
  /** When the request was accepted: the default event timestamp. */
  receivedAt: string;
  event: ValidEvent;
}

export interface Admission {
  queued: boolean;
  decision: RateLimitDecision;
}

/** The per-store limit of event creation: fixed windows of one second; the policy name in `RateLimit-Policy`. */
export const EVENTS_RATE_WINDOW_SECONDS = 1;
export const EVENTS_RATE_POLICY = 'events';

interface Submission {
  storeId: string;
  jobs: CustomEventJob[];
  resolve(admission: Admission): void;
  reject(err: unknown): void;
}

/**
 * Where accepted events are committed: event-inbox.service.ts#EventInbox, which stores the jobs
 * this file declares (declared here so that the two files do not import each other).
 */
interface Inbox {
  accept(jobs: readonly CustomEventJob[]): Promise<void>;
}

export interface IngestionOptions {
  limitPerSecond: number;
  /** Batches committing at once; the next batch fills while they commit. */
  maxInFlight?: number;
  maxBatch?: number;
}

/**
 * Accepting an event means it is committed in PostgreSQL, in the inbox (decisions
 * section 6). One commit per request would cap throughput at what the disk's
 * flushes allow, so concurrent requests are grouped: while a batch commits,
 * the next one fills. A batch counts its requests against the per-store rate
 * limit in one statement, then inserts every admitted job in one multi-row
 * insert. Each request is answered after its jobs committed.
 */
export class EventIngestion {
  private pending: Submission[] = [];
  private inFlight = 0;
  private lastSweep = 0;
  private readonly maxInFlight: number;
  private readonly maxBatch: number;

  constructor(
    private readonly orm: Orm,
    private readonly inbox: Inbox,
    private readonly logger: Logger,
    private readonly options: IngestionOptions,
  ) {
    this.maxInFlight = options.maxInFlight ?? 2;
    this.maxBatch = options.maxBatch ?? 500;
  }

  /** Counts one request against the store's limit and, when admitted, queues its events durably. */
  submit(storeId: string, events: ValidEvent[]): Promise<Admission> {
    const receivedAt = new Date().toISOString();
    // Read here, in the request: the batch insert runs outside it.
    const trace = currentTrace();
    const jobs = events.map((event): CustomEventJob => ({ eventId: newId('event'), storeId, receivedAt, event, ...(trace && { trace }) }));
    return new Promise((resolve, reject) => {
      this.pending.push({ storeId, jobs, resolve, reject });
      this.kick();
    });
  }

  private scheduled = false;

  /** Flushes after the current turn of the event loop, so requests read in the same turn share a batch. */
  private kick(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flushPending();
    });
  }

  private flushPending(): void {
    while (this.inFlight < this.maxInFlight && this.pending.length) {
      const batch = this.pending.splice(0, this.maxBatch);
      this.inFlight++;
      void this.flush(batch).finally(() => {
        this.inFlight--;
        this.kick();
      });
    }
  }

  private async flush(batch: Submission[]): Promise<void> {
    try {
      const decisions = await this.count(batch);
      const jobs = batch.flatMap((s, i) => (decisions[i]!.allowed ? s.jobs : []));
      // One multi-row insert: atomic on its own, and durable once it returns.
      if (jobs.length) await this.inbox.accept(jobs);
      customEventsAccepted.inc(jobs.length);
      customEventsRejected.inc(decisions.filter((d) => !d.allowed).length);
      batch.forEach((s, i) => s.resolve({ queued: decisions[i]!.allowed, decision: decisions[i]! }));
    } catch (err) {
      this.logger.error({ err, requests: batch.length }, 'event ingestion batch failed');
      for (const s of batch) s.reject(err);
    }
    await this.sweep();
  }

  /**
   * One atomic upsert per store in the batch (fixed one-second windows on the
   * database clock, shared by every process); the returned total tells how
   * many of this batch's requests still fit.
   *
   * Its own transaction, which does not wait for the disk: the counter rows
   * stay locked until commit, and a commit that waited for the WAL flush
   * would make every concurrent batch for the same stores queue behind it.
   * A crash can lose the last moment's counts, never an accepted event.
   */
  private async count(batch: Submission[]): Promise<RateLimitDecision[]> {
    const perStore = new Map<string, number>();
    for (const s of batch) perStore.set(s.storeId, (perStore.get(s.storeId) ?? 0) + 1);
    // A stable order, so two processes' batches lock the same counters in the same order.
    const stores = [...perStore.keys()].sort();
    // One statement, so one round trip: set_config(..., true) holds for the statement's own
    // transaction, including its commit.
    const rows = await sql<{ storeId: string; count: number }>(
      this.orm.em.fork(),
      `with no_flush_wait as (select set_config('synchronous_commit', 'off', true))
       insert into event_rate_window as w (store_id, window_start, count)
         select s, floor(extract(epoch from clock_timestamp()) / $3)::bigint, n from unnest($1::text[], $2::int[]) as t(s, n), no_flush_wait
         on conflict (store_id, window_start) do update set count = w.count + excluded.count
         returning store_id as "storeId", count`,
      [stores, stores.map((s) => perStore.get(s)!), EVENTS_RATE_WINDOW_SECONDS],
    );
    const used = new Map(rows.map((r) => [r.storeId, r.count - perStore.get(r.storeId)!]));
    const limit = this.options.limitPerSecond;
    return batch.map((s) => {
      const count = used.get(s.storeId)! + 1;
      used.set(s.storeId, count);
      return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds: EVENTS_RATE_WINDOW_SECONDS };
    });
  }

  /** Old windows are useless once over; drop them now and then. */
  private async sweep(): Promise<void> {
    const now = Date.now();
    if (now - this.lastSweep < 10_000) return;
    this.lastSweep = now;
    await sql(this.orm.em.fork(), `delete from event_rate_window where window_start < floor(extract(epoch from clock_timestamp()) / $1)::bigint - 60`, [
      EVENTS_RATE_WINDOW_SECONDS,
    ]).catch((err: unknown) => this.logger.warn({ err }, 'rate window sweep failed'));
  }
}
