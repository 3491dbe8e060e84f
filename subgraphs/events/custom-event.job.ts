import { claimJobs, failClaimedJob, type ClaimedJobRow } from '../../platform/jobs/job-claims.js';
import type { Config } from '../../platform/config.js';
import type { Logger } from '../../platform/observability/logger.js';
import { customEventsProcessed } from '../../platform/observability/metrics.js';
import { PollingLoop } from '../../platform/jobs/polling-loop.js';
import type { Orm } from '../../platform/db/orm.js';
import { ensureQueue, RETRIES, type PgBoss } from '../../platform/jobs/queue.js';
import { inJobBatchSpan } from '../../platform/observability/tracing.js';
import { CUSTOM_EVENTS_QUEUE, type CustomEventJob } from './event-ingestion.service.js';
import { EVENT_LANES, EventLanes, LANE_KEY } from './event-lanes.service.js';
import { UnprocessableJobError, type CustomEventService } from './custom-event.service.js';

/**
 * Retries with backoff, then the dead-letter queue. Jobs are claimed by the transaction that
 * applies them (no claim to expire: a crashed worker's jobs are due again at once); processing is
 * idempotent on the event id.
 */
export async function createCustomEventQueues(boss: PgBoss): Promise<void> {
  await ensureQueue(boss, CUSTOM_EVENTS_QUEUE, { ...RETRIES.events, expireInSeconds: 60, deadLetters: true });
}

/** Acceptance order: a claim reads jobs by insert time; jobs inserted together keep their place in the insert. */
function acceptanceOrder(a: ClaimedJobRow, b: ClaimedJobRow): number {
  const position = (job: ClaimedJobRow) => (job.data as Partial<CustomEventJob> | null)?.position ?? 0;
  return a.createdOn.getTime() - b.createdOn.getTime() || position(a) - position(b);
}

export interface WorkerLanes {
  /** Jobs applied per transaction: a claim takes what is there, so transactions grow with the backlog. */
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
 * Each transaction claims its jobs itself (the oldest due jobs of this process's lanes, row-locked,
 * job-claims.ts), applies them and deletes them. Up to `concurrency` transactions are in flight,
 * each starting once the one before holds its ordering locks (its uniqueId claims and its
 * customers' rows) and claiming the next jobs: where two of them touch the same customer or
 * uniqueId, the later one waits for the earlier to commit, as if they ran one after the other; the
 * rest of their work (event rows, outbox, commit) overlaps. When one fails, its jobs are applied
 * one by one so one event cannot hold its batch-mates back; a job that fails alone is left to
 * pg-boss to retry or dead-letter.
 */
export class CustomEventWorker extends PollingLoop {
  /** Jobs held by this process's open transactions: the next claim skips them. */
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly deps: CustomEventWorkerDeps,
    private readonly service: CustomEventService,
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
    let jobs: ClaimedJobRow[] = [];
    let signalled = false;
    const signal = () => {
      if (signalled) return;
      signalled = true;
      ordered(jobs.length);
    };
    const claimed = (rows: ClaimedJobRow[]) => {
      jobs = rows;
      for (const job of rows) this.inFlight.add(job.id);
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
      for (const job of jobs) this.inFlight.delete(job.id);
    }
  }

  /** One transaction: claim, apply in acceptance order (`ordered` once it holds its ordering locks), take the jobs off the queue. */
  private apply(claim: { limit: number; only?: string[] }, claimed?: (jobs: ClaimedJobRow[]) => void, ordered?: () => void): Promise<void> {
    return this.service.inTransaction(async (em, learned) => {
      const lanes = this.lanes.beginClaim();
      let jobs: ClaimedJobRow[] = [];
      try {
        const partitions = lanes ? { key: LANE_KEY, count: EVENT_LANES, held: lanes } : undefined;
        // A job retried alone is among this process's own; other claims skip those.
        const exclude = claim.only ? [] : [...this.inFlight];
        if (lanes?.length !== 0) jobs = (await claimJobs(em, CUSTOM_EVENTS_QUEUE, { ...claim, exclude, partitions })).sort(acceptanceOrder);
      } finally {
        this.lanes.endClaim();
      }
      claimed?.(jobs);
      if (!jobs.length) return;
      // Found work: the rest of the transaction is a span linked to the accepting requests' traces.
      await inJobBatchSpan(CUSTOM_EVENTS_QUEUE, jobs, async () => {
        await this.service.processBatch(
          em,
          jobs.map((job) => job.data),
          learned,
          ordered,
        );
        await this.service.settle(em, CUSTOM_EVENTS_QUEUE, jobs);
      });
    });
  }

  /** After a failed batch: each job in its own transaction; one that fails alone is recorded as a failed attempt. */
  private async eachAlone(jobs: ClaimedJobRow[], batchError: unknown): Promise<void> {
    for (const job of jobs) {
      let error = batchError;
      if (jobs.length > 1) {
        try {
          await this.apply({ limit: 1, only: [job.id] });
          customEventsProcessed.inc({ outcome: 'completed' });
          continue;
        } catch (err) {
          error = err;
        }
      }
      this.deps.logger.error({ err: error, jobId: job.id }, 'custom event processing failed');
      const message = error instanceof Error ? error.message : String(error);
      const outcome = await failClaimedJob(this.deps.boss, this.deps.orm, CUSTOM_EVENTS_QUEUE, job.id, message, error instanceof UnprocessableJobError).catch((err: unknown) => {
        this.deps.logger.error({ err, jobId: job.id }, 'recording a failed custom event attempt failed');
        return null;
      });
      if (outcome) customEventsProcessed.inc({ outcome });
    }
  }
}

/** The workers this process runs, so a test or a benchmark can pause them. */
const running = new WeakMap<PgBoss, Set<() => Promise<void>>>();

/** Starts a worker and its lanes; returns the function that stops both (the lanes are released). */
export async function startCustomEventWorkers(deps: CustomEventWorkerDeps, service: CustomEventService, options: WorkerLanes): Promise<() => Promise<void>> {
  const lanes = new EventLanes(deps.orm.config.get('clientUrl')!, deps.config.dbTimeouts, deps.logger);
  await lanes.start();
  const worker = new CustomEventWorker(deps, service, lanes, options);
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
