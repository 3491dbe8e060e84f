import type { JobResult } from 'pg-boss';
import type { Logger } from '../../platform/logger.js';
import { customEventsProcessed } from '../../platform/metrics.js';
import type { PgBoss } from '../../platform/queue.js';
import { withDeadLetters } from '../../platform/dead-letters.js';
import { CUSTOM_EVENTS_QUEUE } from './custom-event.ingestion.js';
import { UnprocessableJobError, type CustomEventService } from './custom-event.service.js';

/**
 * Retries with backoff, then the dead-letter queue. A job's claim expires after
 * a minute, so the jobs of a worker that died are picked up again; processing
 * is idempotent on the event id, so a job whose transaction had committed
 * changes nothing the second time.
 */
export async function createCustomEventQueues(boss: PgBoss): Promise<void> {
  const deadLetters = await withDeadLetters(boss, CUSTOM_EVENTS_QUEUE);
  if (!(await boss.getQueue(CUSTOM_EVENTS_QUEUE))) {
    await boss.createQueue(CUSTOM_EVENTS_QUEUE, {
      ...deadLetters,
      retryLimit: 5,
      retryDelay: 2,
      retryBackoff: true,
      retryDelayMax: 300,
      expireInSeconds: 60,
    });
  }
}

interface BatchJob {
  id: string;
  data: unknown;
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

/**
 * One transaction for the whole batch (one commit for up to EVENTS_BATCH_SIZE events). When
 * it fails (one bad event, or a race with another worker), each job is
 * settled on its own so one event cannot hold its batch-mates back.
 */
export async function processCustomEventBatch(service: CustomEventService, jobs: BatchJob[], logger: Logger): Promise<JobResult[]> {
  try {
    await service.inTransaction((em, learned) => service.processBatch(em, jobs.map((job) => job.data), learned));
    return countOutcomes(jobs, jobs.map((job) => ({ id: job.id, status: 'completed' })));
  } catch (err) {
    if (jobs.length > 1) logger.warn({ err, jobs: jobs.length }, 'custom event batch failed; processing its jobs one by one');
  }
  const results: JobResult[] = [];
  for (const job of jobs) {
    try {
      await service.inTransaction((em, learned) => service.processBatch(em, [job.data], learned));
      results.push({ id: job.id, status: 'completed' });
    } catch (err) {
      logger.error({ err, jobId: job.id }, 'custom event processing failed');
      const message = err instanceof Error ? err.message : String(err);
      results.push({ id: job.id, status: err instanceof UnprocessableJobError ? 'deadletter' : 'failed', output: { message } });
    }
  }
  return countOutcomes(jobs, results);
}

export interface WorkerLanes {
  /** Jobs per fetch, applied in one transaction: a fetch takes what is there, so batches grow with the backlog. */
  batchSize: number;
  /** Batches in flight at once in this process. */
  concurrency: number;
}

export async function startCustomEventWorkers(boss: PgBoss, service: CustomEventService, logger: Logger, lanes: WorkerLanes): Promise<void> {
  // Full batches are fetched again at once (a backlog drains without waiting for the poll interval).
  await boss.work(
    CUSTOM_EVENTS_QUEUE,
    { batchSize: lanes.batchSize, perJobResults: true, includeMetadata: true, localConcurrency: lanes.concurrency, pollingIntervalSeconds: 0.5, burstWhenBatchFull: true },
    (jobs) => processCustomEventBatch(service, jobs, logger),
  );
}
