import type { Job } from 'pg-boss';
import type { Config } from '../../platform/config.js';
import type { Logger } from '../../platform/observability/logger.js';
import { customEventsProcessed } from '../../platform/observability/metrics.js';
import { PollingLoop } from '../../platform/jobs/polling-loop.js';
import type { Orm } from '../../platform/db/orm.js';
import { sendToDeadLetters, withoutFailure } from '../../platform/jobs/dead-letters.js';
import { ensureQueue, RETRIES, type PgBoss } from '../../platform/jobs/queue.js';
import { transactionDb } from '../../platform/jobs/outbox.js';
import { inJobBatchSpan } from '../../platform/observability/tracing.js';
import { CUSTOM_EVENTS_QUEUE, type CustomEventJob } from './event-ingestion.service.js';
import type { EventInbox, InboxRow } from './event-inbox.service.js';
import { EventLanes } from './event-lanes.service.js';
import { ensurePartitionOf } from './custom-event-partitions.job.js';
import { isCustomEventJob, UnprocessableJobError, type CustomEventService } from './custom-event.service.js';

/**
 * The custom events' pg-boss queue is no longer where accepted events wait (they wait in the
 * inbox): it keeps their dead letters, and whatever reaches it (a dead letter retried by the admin,
 * events queued by a version before the inbox) is moved into the inbox by `startTransfer`.
 */
export async function createCustomEventQueues(boss: PgBoss): Promise<void> {
  await ensureQueue(boss, CUSTOM_EVENTS_QUEUE, { ...RETRIES.events, expireInSeconds: 60, deadLetters: true });
}

export interface WorkerLanes {
  /** Events applied per transaction: a claim takes what is there, so transactions grow with the backlog. */
  batchSize: number;
  /** Transactions in flight at once in this process, in order (see CustomEventWorker). */
  concurrency: number;
}

export interface CustomEventWorkerDeps {
  orm: Orm;
  boss: PgBoss;
  logger: Logger;
  config: Pick<Config, 'dbTimeouts'>;
}

/** How long a worker waits after a claim that found less than a full batch. */
const POLL_MS = 500;

/**
 * Applies accepted events in acceptance order, per lane (event-lanes.service.ts), across processes.
 *
 * Each transaction claims its events itself from the inbox (the oldest due rows of this process's
 * lanes, row-locked, event-inbox.service.ts), applies them and deletes them. Up to `concurrency`
 * transactions are in flight, each starting once the one before holds its ordering locks (its
 * uniqueId claims and its customers' rows) and claiming the next events: where two of them touch
 * the same customer or uniqueId, the later one waits for the earlier to commit, as if they ran one
 * after the other; the rest of their work (event rows, outbox, commit) overlaps. When one fails,
 * its events are applied one by one so one event cannot hold its batch-mates back; an event that
 * fails alone is due again after the retry delay, and dead-lettered past the retry limit.
 */
export class CustomEventWorker extends PollingLoop {
  /** Inbox rows held by this process's open transactions: the next claim skips them. */
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly deps: CustomEventWorkerDeps,
    private readonly service: CustomEventService,
    private readonly inbox: EventInbox,
    private readonly lanes: EventLanes,
    private readonly options: WorkerLanes,
  ) {
    super();
  }

  /** Claims while running; once stopped, lets the transactions in flight finish (stop resolves then). */
  protected async run(): Promise<void> {
    const open = new Set<Promise<void>>();
    while (this.running) {
      while (open.size >= this.options.concurrency) await Promise.race(open);
      // Resolves once the transaction holds what orders it (or is over), with how many jobs it claimed.
      const claimed = await new Promise<number>((ordered) => {
        const transaction = this.transaction(ordered).finally(() => open.delete(transaction));
        open.add(transaction);
      });
      if (claimed < this.options.batchSize) await this.pause(POLL_MS);
    }
    await Promise.all(open);
  }

  private async transaction(ordered: (claimed: number) => void): Promise<void> {
    let jobs: InboxRow[] = [];
    let signalled = false;
    const signal = () => {
      if (signalled) return;
      signalled = true;
      ordered(jobs.length);
    };
    const claimed = (rows: InboxRow[]) => {
      jobs = rows;
      for (const job of rows) this.inFlight.add(job.seq);
    };
    try {
      await this.apply({ limit: this.options.batchSize }, claimed, signal);
      customEventsProcessed.inc({ outcome: 'completed' }, jobs.length);
    } catch (err) {
      signal();
      if (jobs.length > 1) this.deps.logger.warn({ err, jobs: jobs.length }, 'custom event batch failed; processing its jobs one by one');
      await this.eachAlone(jobs, err);
    } finally {
      signal();
      for (const job of jobs) this.inFlight.delete(job.seq);
    }
  }

  /**
   * One transaction: claim, apply in acceptance order (`ordered` once it holds its ordering locks),
   * take the events out of the inbox. Its lanes stay held until it is over (`beginClaim` to
   * `endClaim`): a lane changes process only between transactions, never under one.
   */
  private apply(claim: { limit: number; only?: string[] }, claimed?: (jobs: InboxRow[]) => void, ordered?: () => void): Promise<void> {
    const lanes = this.lanes.beginClaim();
    return this.service
      .inTransaction(async (em, learned) => {
        // A row retried alone is among this process's own; other claims skip those.
        const exclude = claim.only ? [] : [...this.inFlight];
        const jobs = lanes?.length === 0 ? [] : await this.inbox.claim(em, { ...claim, exclude, lanes: lanes ?? undefined });
        claimed?.(jobs);
        if (!jobs.length) return;
        // Found work: the rest of the transaction is a span linked to the accepting requests' traces.
        await inJobBatchSpan(CUSTOM_EVENTS_QUEUE, jobs.map((job) => ({ id: job.seq, data: job.job })), async () => {
          await this.service.processBatch(
            em,
            jobs.map((job) => job.job),
            learned,
            ordered,
          );
          await this.inbox.settle(em, jobs);
        });
      })
      .finally(() => this.lanes.endClaim());
  }

  /** After a failed batch: each event in its own transaction; one that fails alone is recorded as a failed attempt. */
  private async eachAlone(jobs: InboxRow[], batchError: unknown): Promise<void> {
    for (const job of jobs) {
      let error = batchError;
      // The month it was received in is missing (dropped by retention before a dead letter was retried): made again, then tried.
      const noPartition = isMissingPartition(error);
      if (noPartition) await ensurePartitionOf(this.deps.orm, job.job.receivedAt).catch(() => undefined);
      if (jobs.length > 1 || noPartition) {
        try {
          await this.apply({ limit: 1, only: [job.seq] });
          customEventsProcessed.inc({ outcome: 'completed' });
          continue;
        } catch (err) {
          error = err;
        }
      }
      this.deps.logger.error({ err: error, eventId: job.eventId }, 'custom event processing failed');
      const message = error instanceof Error ? error.message : String(error);
      const outcome = await this.inbox.fail(job.seq, message, error instanceof UnprocessableJobError).catch((err: unknown) => {
        this.deps.logger.error({ err, eventId: job.eventId }, 'recording a failed custom event attempt failed');
        return null;
      });
      if (outcome) customEventsProcessed.inc({ outcome });
    }
  }
}

/** PostgreSQL's "no partition of relation ... found for row" (check_violation, raised by the partition routing). */
function isMissingPartition(err: unknown): boolean {
  return err instanceof Error && (err as { code?: string }).code === '23514' && /no partition/.test(err.message);
}

/** The workers this process runs, so a test or a benchmark can pause them. */
const running = new WeakMap<PgBoss, Set<() => Promise<void>>>();

/** Starts a worker and its lanes, and the transfer from the queue; returns the function that stops them (the lanes are released). */
export async function startCustomEventWorkers(deps: CustomEventWorkerDeps, service: CustomEventService, inbox: EventInbox, options: WorkerLanes): Promise<() => Promise<void>> {
  const lanes = new EventLanes(deps.orm.config.get('clientUrl')!, deps.config.dbTimeouts, deps.logger);
  await lanes.start();
  const worker = new CustomEventWorker(deps, service, inbox, lanes, options);
  worker.start();
  const stops = running.get(deps.boss) ?? new Set();
  running.set(deps.boss, stops);
  const stop = async () => {
    stops.delete(stop);
    await worker.stop();
    await lanes.stop();
  };
  stops.add(stop);
  return stop;
}

/** Stops every custom event worker of the process that owns `boss` (the transactions in flight finish). */
export async function stopCustomEventWorkers(boss: PgBoss): Promise<void> {
  for (const stop of [...(running.get(boss) ?? [])]) await stop();
}

/**
 * Moves what reaches the custom events' queue into the inbox: a dead letter the admin retried, or
 * an event queued before the inbox existed. The insert is idempotent on the event id, so a job
 * pg-boss hands out again (its completion lost in a crash) adds nothing twice. Data that is no
 * custom event is dead-lettered at once.
 */
export async function startTransfer(deps: CustomEventWorkerDeps, inbox: EventInbox): Promise<void> {
  await deps.boss.work<unknown>(CUSTOM_EVENTS_QUEUE, { batchSize: 100, pollingIntervalSeconds: 2 }, async (jobs: Job<unknown>[]) => {
    const events = jobs.map((job) => withoutFailure(job.data).data);
    const valid = events.filter(isCustomEventJob) as CustomEventJob[];
    await deps.orm.em.fork().transactional(async (em) => {
      await inbox.accept(valid, em);
      const invalid = jobs.filter((_, i) => !isCustomEventJob(events[i]));
      if (invalid.length) await sendToDeadLetters(deps.boss, transactionDb(em), CUSTOM_EVENTS_QUEUE, invalid.map((job) => ({ data: job.data as object, error: 'job data is not a custom event job' })));
    });
  });
}
