import type { JobResult } from 'pg-boss';
import { withDeadLetters } from '../../../platform/dead-letters.js';
import { applyBatchOrEachAlone } from '../../../platform/job-batches.js';
import type { Logger } from '../../../platform/logger.js';
import { flowRunsStarted } from '../../../platform/metrics.js';
import { OUTBOX_RETENTION_SECONDS, isEventOf, subscribeQueue, type OutboxEvent } from '../../../platform/outbox.js';
import type { Orm } from '../../../platform/db/orm.js';
import { ensureQueue, type PgBoss } from '../../../platform/queue.js';
import { inJobBatchSpan } from '../../../platform/tracing.js';
import { CustomEventCreated, type CustomEventCreatedData } from '../custom-event.events.js';
import { FLOW_STEPS_QUEUE, type FlowRunner, type FlowStepJob } from './flow.runner.js';
import { FLOW_TRIGGERS_QUEUE } from './flow.triggers.js';

export async function createFlowQueues(boss: PgBoss): Promise<void> {
  // Fed by event processing (flow.triggers.ts), not by a subscription: a database from before that
  // change has the queue subscribed to every processed event, which would queue each event twice.
  await boss.unsubscribe(CustomEventCreated.type, FLOW_TRIGGERS_QUEUE);
  // notify: a worker wakes when a job is inserted instead of at its next poll (each stage of a run would add half a poll).
  await subscribeQueue(boss, FLOW_TRIGGERS_QUEUE, [], {
    notify: true,
    retryLimit: 10,
    retryDelay: 2,
    retryBackoff: true,
    retryDelayMax: 300,
    expireInSeconds: 120,
    ...(await withDeadLetters(boss, FLOW_TRIGGERS_QUEUE)),
  });
  // Waits are delayed jobs of up to 90 days: they are kept (retention) far beyond that. A batch may send for a
  // while (provider timeouts), so its claim lasts long, but the worker's heartbeat shows it alive: the batch of
  // a process that died is taken again within seconds of its last heartbeat. A claim taken from a live but slow
  // worker is harmless: the runs stay locked until it commits, and its tokens then turn the copy into a no-op.
  await ensureQueue(boss, FLOW_STEPS_QUEUE, {
    notify: true,
    retentionSeconds: OUTBOX_RETENTION_SECONDS,
    retryLimit: 5,
    retryDelay: 5,
    retryBackoff: true,
    retryDelayMax: 600,
    expireInSeconds: 900,
    heartbeatSeconds: 10,
    ...(await withDeadLetters(boss, FLOW_STEPS_QUEUE)),
  });
}

interface BatchJob<T> {
  id: string;
  data: T;
}

/** One transaction per batch of processed events (when it fails, each job alone). */
function startRuns(orm: Orm, runner: FlowRunner, jobs: BatchJob<OutboxEvent>[], logger: Logger): Promise<JobResult[]> {
  const relevant = (job: BatchJob<OutboxEvent>) => (isEventOf(CustomEventCreated, job.data) ? [job.data as OutboxEvent<string, CustomEventCreatedData>] : []);
  return applyBatchOrEachAlone(jobs, async (batch) => flowRunsStarted.inc(await orm.em.fork().transactional((em) => runner.start(em, batch.flatMap(relevant)))), logger, {
    what: 'starting flow runs',
  });
}

/** The batch in one transaction (when it fails, each job alone, so one run cannot hold the others back). */
function advanceRuns(runner: FlowRunner, jobs: BatchJob<FlowStepJob>[], logger: Logger): Promise<JobResult[]> {
  return applyBatchOrEachAlone(jobs, (batch) => runner.advance(batch.map((job) => job.data)), logger, { what: 'flow step' });
}

export async function startFlowWorkers(orm: Orm, boss: PgBoss, runner: FlowRunner, logger: Logger): Promise<void> {
  await boss.work<OutboxEvent>(
    FLOW_TRIGGERS_QUEUE,
    { batchSize: 100, perJobResults: true, localConcurrency: 1, pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 2, burstWhenBatchFull: true },
    (jobs) => inJobBatchSpan(FLOW_TRIGGERS_QUEUE, jobs, () => startRuns(orm, runner, jobs, logger)),
  );
  // Two lanes: a slow provider holds one batch, not every run of the process. A wait's job becomes due
  // without a notification, so the backstop poll stays at half a second.
  await boss.work<FlowStepJob>(
    FLOW_STEPS_QUEUE,
    { batchSize: 50, perJobResults: true, localConcurrency: 2, pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 0.5, burstWhenBatchFull: true },
    (jobs) => inJobBatchSpan(FLOW_STEPS_QUEUE, jobs, () => advanceRuns(runner, jobs, logger)),
  );
}
