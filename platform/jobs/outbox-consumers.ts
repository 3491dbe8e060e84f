import type { JobResult } from 'pg-boss';
import { sql, type EntityManager, type Orm } from '../db/orm.js';
import { isDatabaseUnavailable } from '../errors.js';
import { applyBatchOrEachAlone } from './job-batches.js';
import type { Logger } from '../observability/logger.js';
import { metrics } from '../observability/metrics.js';
import { PollingLoop } from './polling-loop.js';
import { enqueueInTransaction, OUTBOX_RETENTION_SECONDS, settleInTransaction, type OutboxContract, type OutboxEvent } from './outbox.js';
import { ensureQueue, type PgBoss, type QueuePolicy } from './queue.js';
import { inBatchSpan, inJobBatchSpan, type TraceCarrier } from '../observability/tracing.js';

/**
 * A reader of the outbox (webhook fan-out, restock, flow triggers, ...): its name and the contracts
 * it reads. The name is also its pg-boss queue's: events it gave up on (and events queued for it
 * before the outbox was a table) are retried there with the queue's policy and dead letters.
 */
export interface OutboxConsumerDeclaration {
  readonly name: string;
  readonly contracts: readonly OutboxContract[];
}

export function outboxConsumer(name: string, contracts: readonly OutboxContract[]): OutboxConsumerDeclaration {
  return { name, contracts };
}

const typesOf = (declaration: OutboxConsumerDeclaration) => [...new Set(declaration.contracts.map((c) => c.type))];

/**
 * Gives each consumer a position (idempotent, every role, before anything publishes): a new
 * consumer reads the events committed from now on, and retention keeps them for it from now on.
 */
export async function registerOutboxConsumers(orm: Orm, declarations: readonly OutboxConsumerDeclaration[]): Promise<void> {
  await sql(orm.em.fork(), `insert into platform.outbox_consumer (name, snapshot) select unnest($1::text[]), pg_current_snapshot() on conflict do nothing`, [
    declarations.map((d) => d.name),
  ]);
}

/**
 * The consumer's queue: kept for years (nothing handed to it may silently disappear), with dead
 * letters. Events were once delivered to these queues by pg-boss pub/sub; the subscriptions go.
 */
export async function createConsumerQueue(boss: PgBoss, declaration: OutboxConsumerDeclaration, policy: QueuePolicy = {}): Promise<void> {
  await ensureQueue(boss, declaration.name, { retentionSeconds: OUTBOX_RETENTION_SECONDS, deadLetters: true, ...policy });
  for (const type of typesOf(declaration)) await boss.unsubscribe(type, declaration.name);
}

interface StateRow {
  snapshot: string;
  target: string | null;
  after: string | null;
  ceiling: string | null;
  /** The statement's own snapshot and the sequence's last value: the next window's bounds. */
  now: string;
  lastValue: string;
}

interface EventRow {
  sequence: string;
  /** Whether the consumer needs the event (`wanted`); the payload is read only then. */
  wanted: boolean;
  id: string;
  type: string;
  version: number;
  storeId: string;
  subjectType: string;
  subjectId: string;
  occurredAt: Date;
  data: unknown;
  trace: TraceCarrier | null;
}

/**
 * The consumer's row is its lock: one process reads a consumer at a time, the others skip it. Locking
 * it makes the pass a writing transaction, whose commit would wait for the disk even when the pass
 * found nothing: the pass commits without waiting unless it applies something (ADVANCE says so).
 */
const STATE = `select c.snapshot::text, c.target::text, c.after::text, c.ceiling::text, pg_current_snapshot()::text as now,
  (select last_value from platform.outbox_sequence)::text as "lastValue", set_config('synchronous_commit', 'off', true) as durability
  from platform.outbox_consumer c where c.name = $1 for update skip locked`;

const columns = (wanted: string) => `o.sequence, (${wanted}) as wanted, o.id, o.type, o.version, o.store_id as "storeId", o.subject_type as "subjectType",
  o.subject_id as "subjectId", o.occurred_at as "occurredAt", o.trace`;

/**
 * A window is the events of the transactions that committed between the position's snapshot ($1)
 * and the target ($2), in sequence order. Its start is found through the `tx` index (the rows of
 * transactions not older than the position's oldest running one; materialized, so the planner
 * cannot walk the primary key from the table's first row instead); a window too large for one
 * pass goes on in sequence order from the last event read ($5), up to the target's ceiling ($6).
 */
const windowStart = (wanted: string) => `with w as materialized (
    select ${columns(wanted)}, o.data from platform.outbox_event o
     where o.tx >= pg_snapshot_xmin($1::pg_snapshot) and not pg_visible_in_snapshot(o.tx, $1::pg_snapshot) and pg_visible_in_snapshot(o.tx, $2::pg_snapshot)
       and o.type = any($3::text[]))
  select w.*, case when w.wanted then w.data end as data from w order by w.sequence limit $4`;

const windowNext = (wanted: string) => `select ${columns(wanted)}, case when (${wanted}) then o.data end as data from platform.outbox_event o
  where o.sequence > $5::bigint and o.sequence <= $6::bigint and not pg_visible_in_snapshot(o.tx, $1::pg_snapshot) and pg_visible_in_snapshot(o.tx, $2::pg_snapshot)
    and o.type = any($3::text[])
  order by o.sequence limit $4`;

/**
 * Whether a pass has anything to do: events of its types committed since its position, a window
 * being read in parts, or a position over a second old (moved on even when idle, so retention and
 * the window's start follow the other consumers' traffic). One read, no lock and no write: an idle
 * consumer costs one statement per poll instead of a locking, writing transaction.
 */
const DUE = `select c.target is not null or c.updated_at < now() - interval '1 second' or exists (
    select 1 from platform.outbox_event o where o.tx >= pg_snapshot_xmin(c.snapshot) and not pg_visible_in_snapshot(o.tx, c.snapshot) and o.type = any($2::text[])) as due
  from platform.outbox_consumer c where c.name = $1`;

// $6: whether the pass applied something, whose commit then waits for the disk as any other.
const ADVANCE = `update platform.outbox_consumer set snapshot = $2::pg_snapshot, target = $3::pg_snapshot, after = $4::bigint, ceiling = $5::bigint, updated_at = now()
  from (select set_config('synchronous_commit', case when $6::boolean then 'on' else 'off' end, true)) durability where name = $1`;

/** What a consumer does with the events it reads, in the transaction that advances its position. */
type ApplyEvents = (em: EntityManager, events: OutboxEvent[]) => Promise<void>;

export interface OutboxConsumerOptions {
  declaration: OutboxConsumerDeclaration;
  /** The consumer's own database slice: its effects and its position commit in one transaction there. */
  orm: Orm;
  boss: PgBoss;
  logger: Logger;
  apply: ApplyEvents;
  /** Events per pass (one transaction). */
  batchSize?: number;
  /** Pause when a pass found less than a full batch (100 ms by default). */
  idleMs?: number;
  /** After a pass that consumed events (e.g. wake a deliverer). */
  onConsumed?: (count: number) => void;
  /**
   * Which events of its types the consumer needs, as SQL on the outbox row `o`, run on the
   * consumer's connection (so it may read the consumer's own tables): the others move its position
   * without their payload being read or applied. All of them by default.
   */
  wanted?: string;
}

/** The pauses after each failed attempt of one event alone; after the last, the event is handed to the consumer's queue. */
const ATTEMPT_PAUSES_MS = [1_000, 5_000, 0];

/** A failure of the consumer's own work (not of reading the outbox or reaching the database), which counts against the event. */
class ApplyFailed extends Error {
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
  }
}

/**
 * Reads the outbox from the consumer's position and applies what it reads in the transaction that
 * moves the position on: a crash anywhere leaves both as they were, so each event takes effect
 * exactly once per consumer. Events arrive in commit order: a window holds every transaction that
 * committed since the previous one, sorted by sequence, so a row committed late is read in a
 * later window instead of being skipped, and a subject's changes (numbered under its lock) come
 * in the order they committed.
 *
 * When a pass fails, the next ones read one event at a time; an event that keeps failing alone is
 * handed to the consumer's queue (retries, then dead letters) and the consumer goes on.
 */
export class OutboxConsumer extends PollingLoop {
  private readonly types: string[];
  private readonly batchSize: number;
  private readonly windowStart: string;
  private readonly windowNext: string;
  constructor(private readonly options: OutboxConsumerOptions) {
    super();
    this.types = typesOf(options.declaration);
    this.batchSize = options.batchSize ?? 1000;
    this.windowStart = windowStart(options.wanted ?? 'true');
    this.windowNext = windowNext(options.wanted ?? 'true');
  }

  get name(): string {
    return this.options.declaration.name;
  }

  /**
   * One pass: at most `limit` events, the wanted ones applied (or, handing over, queued), and the
   * position moved, in one transaction. Returns how many events it read; 0 when there were none or
   * another process holds the consumer.
   */
  async pass(limit = this.batchSize, handOver = false): Promise<number> {
    return this.options.orm.em.fork().transactional(async (em) => {
      const [state] = await sql<StateRow>(em, STATE, [this.name]);
      if (!state) return 0;
      const target = state.target ?? state.now;
      const ceiling = state.target ? state.ceiling! : state.lastValue;
      const rows = state.after
        ? await sql<EventRow>(em, this.windowNext, [state.snapshot, target, this.types, limit, state.after, ceiling])
        : await sql<EventRow>(em, this.windowStart, [state.snapshot, target, this.types, limit]);
      const events = rows.filter((r) => r.wanted).map(toEvent);
      if (events.length) {
        if (handOver) await enqueueInTransaction(this.options.boss, em, this.name, events);
        else await this.inSpan(events, () => this.options.apply(em, events)).catch((err: unknown) => Promise.reject(new ApplyFailed(err)));
      } else if (!rows.length && target === state.snapshot) {
        return 0;
      }
      // A pass that only moves the position (nothing of this consumer's own) may lose the move in a crash: a re-read.
      const done = rows.length < limit;
      const position = done ? [target, null, null, null] : [state.snapshot, target, rows[rows.length - 1]!.sequence, ceiling];
      await sql(em, ADVANCE, [this.name, ...position, events.length > 0]);
      return rows.length;
    });
  }

  protected async run(): Promise<void> {
    const idleMs = this.options.idleMs ?? 100;
    let single = false;
    let failures = 0;
    // After a pass that found less than a full batch, the next one runs only if there is something to do.
    let probe = false;
    // Events queued for the consumer before the outbox was a table are older than any in it: they go first.
    for (let waited = 0; this.running && waited < 60_000 && (await this.queueWaiting()); waited += 250) await this.pause(250);
    while (this.running) {
      const limit = single ? 1 : this.batchSize;
      const handOver = failures >= ATTEMPT_PAUSES_MS.length;
      let consumed: number;
      try {
        consumed = probe && !(await this.due()) ? 0 : await this.pass(limit, handOver);
        if (handOver && consumed) this.options.logger.error({ consumer: this.name }, 'an outbox event kept failing; handed to the consumer queue');
        single = false;
        failures = 0;
        if (consumed) this.options.onConsumed?.(consumed);
      } catch (err) {
        const applying = err instanceof ApplyFailed;
        if (applying && !single) {
          this.options.logger.warn({ err: err.reason, consumer: this.name }, 'outbox consumer pass failed; reading its events one at a time');
          single = true;
          continue;
        }
        // A database out of reach (or no pool connection in time) is waited out: the watch and readiness report it.
        const level = !applying && isDatabaseUnavailable(err) ? 'warn' : 'error';
        this.options.logger[level]({ err: applying ? err.reason : err, consumer: this.name }, 'outbox consumer pass failed');
        // Only the event's own failures count against it: an unreachable database is waited out.
        if (applying) failures++;
        probe = false;
        await this.pause(applying ? ATTEMPT_PAUSES_MS[failures - 1]! : 1_000);
        continue;
      }
      probe = consumed < limit;
      if (probe) await this.pause(idleMs);
    }
  }

  /** What a pass applies is one span linked to the events' traces (an idle pass makes none). */
  private inSpan<T>(events: readonly OutboxEvent[], work: () => Promise<T>): Promise<T> {
    const attributes = { 'messaging.system': 'outbox', 'messaging.operation.type': 'process', 'messaging.destination.name': this.name, 'messaging.batch.message_count': events.length };
    return inBatchSpan(`${this.name} process`, events.map((e) => e.trace), attributes, work);
  }

  private async due(): Promise<boolean> {
    const [row] = await sql<{ due: boolean }>(this.options.orm.em.fork(), DUE, [this.name, this.types]);
    return row?.due ?? false;
  }

  private async queueWaiting(): Promise<boolean> {
    return (await this.options.boss.findJobs(this.name, { queued: true }).catch(() => [])).length > 0;
  }
}

function toEvent(row: EventRow): OutboxEvent {
  return {
    id: row.id,
    type: row.type,
    version: row.version,
    storeId: row.storeId,
    subjectType: row.subjectType,
    subjectId: row.subjectId,
    occurredAt: row.occurredAt.toISOString(),
    sequence: Number(row.sequence),
    ...(row.trace && { trace: row.trace }),
    data: row.data,
  };
}

/**
 * Holds a consumer's position row until the caller's transaction ends (waiting for a pass in
 * progress to commit first): meanwhile its passes skip it and apply nothing. For work that must
 * not interleave with the consumer's own writes (a backfill of what the consumer keeps).
 */
export async function holdConsumer(em: EntityManager, declaration: OutboxConsumerDeclaration): Promise<void> {
  await sql(em, 'select 1 from platform.outbox_consumer where name = $1 for update', [declaration.name]);
}

/**
 * Runs a consumer (worker roles): its outbox loop, and a worker on its queue for the events handed
 * there (and those queued before the outbox was a table). Returns the function that stops the loop
 * (pg-boss stops the queue's worker).
 */
export async function startOutboxConsumer(options: OutboxConsumerOptions): Promise<() => Promise<void>> {
  const { declaration, orm, boss, logger, apply } = options;
  const consumer = new OutboxConsumer(options);
  await boss.work<OutboxEvent>(declaration.name, { batchSize: 50, pollingIntervalSeconds: 1, perJobResults: true, includeMetadata: true }, (jobs): Promise<JobResult[]> =>
    inJobBatchSpan(declaration.name, jobs, () =>
      applyBatchOrEachAlone(
        jobs,
        (batch) =>
          orm.em.fork().transactional(async (em) => {
            await apply(em, batch.map((job) => job.data));
            await settleInTransaction(boss, em, declaration.name, batch);
          }),
        logger,
        { what: `outbox consumer ${declaration.name}` },
      ),
    ),
  );
  consumer.start();
  return () => consumer.stop();
}

/**
 * Deletes the events every consumer has passed (the transactions older than each position's oldest
 * running one) once they are `keepSeconds` old, at most `limit` per call; one process at a time.
 * Returns how many it deleted.
 */
export async function sweepOutbox(orm: Orm, keepSeconds = 0, limit = 20_000): Promise<number> {
  return orm.em.fork().transactional(async (em) => {
    const rows = await sql<{ n: number }>(
      em,
      `with horizon as (select min(pg_snapshot_xmin(snapshot)) as tx from platform.outbox_consumer where pg_try_advisory_xact_lock(hashtext('outbox:retention'))),
            gone as (delete from platform.outbox_event where sequence = any(array(
              select o.sequence from platform.outbox_event o, horizon h where o.tx < h.tx and o.occurred_at < now() - make_interval(secs => $2) limit $1)) returning 1)
       select count(*)::int as n from gone`,
      [limit, keepSeconds],
    );
    return rows[0]!.n;
  });
}

/** Retention in a worker process: a sweep every few seconds, again at once while a sweep is full. Returns the stop function. */
export function startOutboxRetention(orm: Orm, logger: Logger, keepSeconds: number, everyMs = 5_000): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tick = async () => {
    let deleted = 0;
    try {
      deleted = await sweepOutbox(orm, keepSeconds);
    } catch (err) {
      logger.warn({ err }, 'outbox retention sweep failed');
    }
    if (!stopped) timer = setTimeout(() => void tick(), deleted >= 20_000 ? 0 : everyMs);
  };
  timer = setTimeout(() => void tick(), everyMs);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

const lagEvents = metrics.gauge('outbox_consumer_lag_events', 'Outbox events each consumer has not read yet (counted up to 100,000).', ['consumer']);
const lagSeconds = metrics.gauge('outbox_consumer_lag_seconds', 'Age of the oldest outbox event each consumer has not read yet (0 when none).', ['consumer']);

/**
 * How far behind each consumer is, read at scrape time: its unread events of the types it reads
 * (counted up to a cap, so a large backlog costs a bounded read) and the age of the oldest.
 */
export function registerOutboxMetrics(orm: Orm, declarations: readonly OutboxConsumerDeclaration[]): () => void {
  return metrics.collector(async () => {
    const rows = await sql<{ name: string; events: number; oldest: number | null }>(
      orm.em.fork(),
      `select c.name, l.events, l.oldest
         from platform.outbox_consumer c
         join unnest($1::text[], $2::text[]) as d(name, types) on d.name = c.name,
         lateral (select count(*)::int as events, extract(epoch from now() - min(u.occurred_at))::float8 as oldest from (
           select o.occurred_at from platform.outbox_event o
            where o.tx >= pg_snapshot_xmin(c.snapshot) and not pg_visible_in_snapshot(o.tx, c.snapshot) and o.type = any(string_to_array(d.types, ','))
              and not (c.target is not null and pg_visible_in_snapshot(o.tx, c.target) and o.sequence <= c.after)
            limit 100000) u) l`,
      [declarations.map((d) => d.name), declarations.map((d) => typesOf(d).join(','))],
    );
    lagEvents.reset();
    lagSeconds.reset();
    for (const row of rows) {
      lagEvents.set({ consumer: row.name }, row.events);
      lagSeconds.set({ consumer: row.name }, Math.max(0, row.oldest ?? 0));
    }
  });
}
