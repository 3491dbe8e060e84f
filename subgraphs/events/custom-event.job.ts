import type { JobResult } from 'pg-boss';
import type { Logger } from '../../platform/logger.js';
import { customEventsProcessed } from '../../platform/metrics.js';
import { ensureQueue, type PgBoss } from '../../platform/queue.js';
import { withDeadLetters } from '../../platform/dead-letters.js';
import { applyEachAlone } from '../../platform/job-batches.js';
import { inJobBatchSpan } from '../../platform/tracing.js';
import { CUSTOM_EVENTS_QUEUE, type CustomEventJob } from './custom-event.ingestion.js';
import { UnprocessableJobError, type CustomEventService } from './custom-event.service.js';

/**
 * Retries with backoff, then the dead-letter queue. A job's claim expires after
 * a minute, so the jobs of a worker that died are picked up again; processing
 * is idempotent on the event id, so a job whose transaction had committed
 * changes nothing the second time.
 */
export async function createCustomEventQueues(boss: PgBoss): Promise<void> {
  await ensureQueue(boss, CUSTOM_EVENTS_QUEUE, {
    ...(await withDeadLetters(boss, CUSTOM_EVENTS_QUEUE)),
    retryLimit: 5,
    retryDelay: 2,
    retryBackoff: true,
    retryDelayMax: 300,
    expireInSeconds: 60,
  });
}

interface BatchJob {
  id: string;
  data: unknown;
  /** With the queue's metadata: when its insert ran. */
  createdOn?: Date;
  /** With the queue's metadata: a failure on the last allowed attempt dead-letters the job. */
  retryCount?: number;
  retryLimit?: number;
}

/** Counts what each job's result does (custom_events_processed_total). */
function countOutcomes(jobs: BatchJob[], results: JobResult[]): JobResult[] {
  results.forEach((result, i) => {
    const job = jobs[i]!;
    const lastAttempt = job.retryLimit !== undefined && (job.retryCount ?? 0) >= job.retryLimit;
    const outcome = result.status === 'completed' ? 'completed' : result.status === 'deadletter' || lastAttempt ? 'dead_lettered' : 'failed';
    customEventsProcessed.inc({ outcome });
  });
  return results;
}

/** Acceptance order: pg-boss returns a fetched batch in no particular order. */
function acceptanceOrder(a: BatchJob, b: BatchJob): number {
  const time = (a.createdOn?.getTime() ?? 0) - (b.createdOn?.getTime() ?? 0);
  const position = (job: BatchJob) => (job.data as Partial<CustomEventJob> | null)?.position ?? 0;
  return time || position(a) - position(b);
}

/**
 * Applies a fetched batch as transactions of at most `lanes.batchSize` jobs, up to
 * `lanes.concurrency` of them in flight, without giving up event order: transaction k+1 starts
 * once transaction k holds its ordering locks (its uniqueId claims and its customers' rows,
 * `onOrdered`), so where two of them touch the same customer or uniqueId the later one waits for
 * the earlier to commit, as if they ran one after the other; the rest of their work (event rows,
 * outbox, commit) overlaps. Each transaction also takes its jobs off the queue
 * (`settleInTransaction`). When one fails (one bad event, or a race with another worker), its
 * jobs are applied one by one so one event cannot hold its batch-mates back; a job that fails
 * alone is left to pg-boss to retry or dead-letter.
 */
export async function processCustomEventBatch(service: CustomEventService, jobs: BatchJob[], logger: Logger, lanes: WorkerLanes = { batchSize: Math.max(1, jobs.length), concurrency: 1 }): Promise<JobResult[]> {
  const apply = (batch: BatchJob[], onOrdered?: () => void) =>
    service.inTransaction(async (em, learned) => {
      await service.processBatch(em, batch.map((job) => job.data), learned, onOrdered);
      await service.settle(em, CUSTOM_EVENTS_QUEUE, batch);
    });

  const ordered = [...jobs].sort(acceptanceOrder);
  const chunks: BatchJob[][] = [];
  for (let i = 0; i < ordered.length; i += lanes.batchSize) chunks.push(ordered.slice(i, i + lanes.batchSize));
  let previous: Promise<void> = Promise.resolve();
  const failed: BatchJob[][] = [];
  const inFlight: Promise<void>[] = [];
  for (const chunk of chunks) {
    const after = previous;
    let release!: () => void;
    previous = new Promise((resolve) => (release = resolve));
    inFlight.push(
      (async () => {
        await after;
        try {
          await apply(chunk, release);
        } catch (err) {
          if (chunk.length > 1) logger.warn({ err, jobs: chunk.length }, 'custom event batch failed; processing its jobs one by one');
          failed.push(chunk);
        } finally {
          release();
        }
      })(),
    );
    // At most `concurrency` transactions open at once.
    if (inFlight.length >= lanes.concurrency) await inFlight[inFlight.length - lanes.concurrency];
  }
  await Promise.all(inFlight);

  const alone = await applyEachAlone(failed.flat().sort(acceptanceOrder), apply, logger, {
    what: 'custom event processing',
    isPermanent: (err) => err instanceof UnprocessableJobError,
  });
  const results = new Map(alone.map((r) => [r.id, r]));
  return countOutcomes(jobs, jobs.map((job) => results.get(job.id) ?? { id: job.id, status: 'completed' }));
}

export interface WorkerLanes {
  /** Jobs applied per transaction: a fetch takes what is there, so transactions grow with the backlog. */
  batchSize: number;
  /** Transactions in flight at once in this process, in order (see processCustomEventBatch); a fetch takes batchSize x concurrency jobs. */
  concurrency: number;
}

export async function startCustomEventWorkers(boss: PgBoss, service: CustomEventService, logger: Logger, lanes: WorkerLanes): Promise<void> {
  // Full batches are fetched again at once (a backlog drains without waiting for the poll interval).
  await boss.work(
    CUSTOM_EVENTS_QUEUE,
    { batchSize: lanes.batchSize * lanes.concurrency, perJobResults: true, includeMetadata: true, pollingIntervalSeconds: 0.5, burstWhenBatchFull: true },
    (jobs) => inJobBatchSpan(CUSTOM_EVENTS_QUEUE, jobs, () => processCustomEventBatch(service, jobs, logger, lanes)),
  );
}
