import { BulkInsert } from '../../platform/db/bulk-insert.js';
import { sql, type EntityManager, type Orm } from '../../platform/db/orm.js';
import { sendToDeadLetters } from '../../platform/jobs/dead-letters.js';
import { transactionDb } from '../../platform/jobs/outbox.js';
import { retryDelaySeconds, type PgBoss, type RetryPolicy } from '../../platform/jobs/queue.js';
import { EVENT_LANES } from './event-lanes.service.js';
import { CUSTOM_EVENTS_QUEUE, type CustomEventJob } from './event-ingestion.service.js';

/** An accepted event claimed from the inbox by the transaction that applies it. */
export interface InboxRow {
  seq: string;
  eventId: string;
  job: CustomEventJob;
  attempts: number;
}

export interface InboxClaim {
  limit: number;
  /** Rows this process already holds in other open transactions. */
  exclude: readonly string[];
  /** Only the rows of these lanes; all when omitted. */
  lanes?: readonly number[];
  /** Only these rows. */
  only?: readonly string[];
}

const ACCEPT = new BulkInsert<CustomEventJob>(
  'event_inbox',
  [
    { name: 'event_id', type: 'text', value: (j) => j.eventId },
    { name: 'store_id', type: 'text', value: (j) => j.storeId },
    // A store's lane: every process computes the same one, in the database.
    { name: 'lane', type: 'text', value: (j) => j.storeId, select: (v) => `hashtext(${v}) & ${EVENT_LANES - 1}` },
    { name: 'job', type: 'jsonb', value: (j) => JSON.stringify(j) },
  ],
  // Numbered in the order of the rows given: the acceptance order.
  { ordered: true, tail: 'on conflict (event_id) do nothing' },
);

/**
 * The events subgraph's inbox (`event_inbox`): where accepted custom events wait, in acceptance
 * order, until a worker applies them. Its own table, not a queue library's: the claim, the
 * settlement and the retries are the subgraph's SQL on the subgraph's schema.
 */
export class EventInbox {
  constructor(
    private readonly orm: Orm,
    private readonly boss: PgBoss,
    private readonly retries: RetryPolicy,
  ) {}

  /** Accepted events, durable once this returns (one statement, its own commit). */
  async accept(jobs: readonly CustomEventJob[], em: EntityManager = this.orm.em.fork()): Promise<void> {
    await ACCEPT.run(em, jobs);
  }

  /**
   * The oldest due rows of the given lanes, locked by the caller's transaction, which applies and
   * deletes them (`settle`). Rows another transaction holds are skipped: a lane is held by one
   * process at a time, and a process releases a lane only once none of its transactions holds a
   * row of it (event-lanes.service.ts), so what is skipped is this process's own work in flight,
   * ahead in the lane's order; the customers' and uniqueIds' locks order the application behind it.
   */
  claim(em: EntityManager, claim: InboxClaim): Promise<InboxRow[]> {
    const params: unknown[] = [claim.exclude, claim.limit];
    let filters = '';
    if (claim.lanes) {
      params.push(claim.lanes);
      filters += ` and i.lane = any($${params.length}::int[])`;
    }
    if (claim.only) {
      params.push(claim.only);
      filters += ` and i.seq = any($${params.length}::bigint[])`;
    }
    return sql<InboxRow>(
      em,
      // `i.seq`, not the output column of the same name: that one is text, and would sort 10 before 2.
      `select i.seq::text as seq, i.event_id as "eventId", i.job, i.attempts from event_inbox i
        where i.ready_at <= now() and i.seq <> all($1::bigint[])${filters}
        order by i.seq limit $2
        for update skip locked`,
      params,
    );
  }

  /** Takes applied rows out, in the transaction that applied them. */
  async settle(em: EntityManager, rows: readonly InboxRow[]): Promise<void> {
    if (rows.length) await sql(em, 'delete from event_inbox where seq = any($1::bigint[])', [rows.map((r) => r.seq)]);
  }

  /**
   * Records a failed attempt of a row (its transaction rolled back): due again after the events'
   * retry delay, or, past the retry limit (at once when `permanent`), moved to the dead letters in
   * the same commit. Returns what became of it; null when the row was gone (applied meanwhile).
   */
  async fail(seq: string, message: string, permanent: boolean): Promise<'failed' | 'dead_lettered' | null> {
    return this.orm.em.fork().transactional(async (em) => {
      const [row] = await sql<{ job: CustomEventJob; attempts: number }>(em, 'select job, attempts + 1 as attempts from event_inbox where seq = $1 for update', [seq]);
      if (!row) return null;
      if (permanent || row.attempts > (this.retries.retryLimit ?? 0)) {
        await sendToDeadLetters(this.boss, transactionDb(em), CUSTOM_EVENTS_QUEUE, [{ data: row.job, error: message }]);
        await sql(em, 'delete from event_inbox where seq = $1', [seq]);
        return 'dead_lettered';
      }
      await sql(em, `update event_inbox set attempts = $2, last_error = $3, ready_at = now() + make_interval(secs => $4) where seq = $1`, [
        seq,
        row.attempts,
        message,
        retryDelaySeconds(this.retries, row.attempts),
      ]);
      return 'failed';
    });
  }

  /** Whether more than `limit` events wait (the acceptance's back-pressure); reads at most limit + 1 rows. */
  async over(limit: number): Promise<{ waiting: number }> {
    const [row] = await sql<{ n: number }>(this.orm.em.fork(), 'select count(*)::int as n from (select 1 from event_inbox limit $1) w', [limit + 1]);
    return { waiting: row!.n };
  }
}
