import type { JobResult } from 'pg-boss';
import type { Logger } from '../../platform/logger.js';
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
}

/**
 * One transaction for the whole batch (one commit for up to 100 events). When
 * it fails (one bad event, or a race with another worker), each job is
 * settled on its own so one event cannot hold its batch-mates back.
 */
export async function processCustomEventBatch(service: CustomEventService, jobs: BatchJob[], logger: Logger): Promise<JobResult[]> {
  try {
    await service.inTransaction((em, learned) => service.processBatch(em, jobs.map((job) => job.data), learned));
    return jobs.map((job) => ({ id: job.id, status: 'completed' }));
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
  return results;
}

export async function startCustomEventWorkers(boss: PgBoss, service: CustomEventService, logger: Logger): Promise<void> {
  // Full batches are fetched again at once (a backlog drains without waiting for the poll interval).
  await boss.work(
    CUSTOM_EVENTS_QUEUE,
    { batchSize: 100, perJobResults: true, localConcurrency: 1, pollingIntervalSeconds: 0.5, burstWhenBatchFull: true },
    (jobs) => processCustomEventBatch(service, jobs, logger),
  );
}
