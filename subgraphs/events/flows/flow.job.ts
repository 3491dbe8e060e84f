import type { JobResult } from 'pg-boss';
import { applyBatchOrEachAlone } from '../../../platform/jobs/job-batches.js';
import type { Logger } from '../../../platform/observability/logger.js';
import { createConsumerQueue, startOutboxConsumer } from '../../../platform/jobs/outbox-consumers.js';
import { OUTBOX_RETENTION_SECONDS } from '../../../platform/jobs/outbox.js';
import type { StopWorkers } from '../../../platform/module.js';
import type { Orm } from '../../../platform/db/orm.js';
import { ensureQueue, RETRIES, type PgBoss } from '../../../platform/jobs/queue.js';
import { inJobBatchSpan } from '../../../platform/observability/tracing.js';
import { FLOW_STEPS_QUEUE, type FlowRunner, type FlowStepJob } from './flow-run.service.js';
import { FLOW_TRIGGERS_CONSUMER, startRunsFor } from './flow.consumer.js';

export async function createFlowQueues(boss: PgBoss): Promise<void> {
  await createConsumerQueue(boss, FLOW_TRIGGERS_CONSUMER, { ...RETRIES.flowTriggers, expireInSeconds: 120 });
  // Waits are delayed jobs of up to 90 days: they are kept (retention) far beyond that. A batch may send for a
  // while (provider timeouts), so its claim lasts long, but the worker's heartbeat shows it alive: the batch of
  // a process that died is taken again within seconds of its last heartbeat. A claim taken from a live but slow
  // worker is harmless: the runs stay locked until it commits, and its tokens then turn the copy into a no-op.
  await ensureQueue(boss, FLOW_STEPS_QUEUE, {
    notify: true,
    retentionSeconds: OUTBOX_RETENTION_SECONDS,
    ...RETRIES.flowSteps,
    expireInSeconds: 900,
    heartbeatSeconds: 10,
    deadLetters: true,
  });
}

interface BatchJob<T> {
  id: string;
  data: T;
}

/** The batch in one transaction (when it fails, each job alone, so one run cannot hold the others back). */
function advanceRuns(runner: FlowRunner, jobs: BatchJob<FlowStepJob>[], logger: Logger): Promise<JobResult[]> {
  return applyBatchOrEachAlone(jobs, (batch) => runner.advance(batch.map((job) => job.data)), logger, { what: 'flow step' });
}

export async function startFlowWorkers(orm: Orm, boss: PgBoss, runner: FlowRunner, logger: Logger): Promise<StopWorkers> {
  // Two lanes: a slow provider holds one batch, not every run of the process. A wait's job becomes due
  // without a notification, so the backstop poll stays at half a second.
  await boss.work<FlowStepJob>(
    FLOW_STEPS_QUEUE,
    { batchSize: 50, perJobResults: true, localConcurrency: 2, pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 0.5, burstWhenBatchFull: true },
    (jobs) => inJobBatchSpan(FLOW_STEPS_QUEUE, jobs, () => advanceRuns(runner, jobs, logger)),
  );
  return startOutboxConsumer({
    declaration: FLOW_TRIGGERS_CONSUMER,
    orm,
    boss,
    logger,
    batchSize: 250,
    idleMs: 20,
    apply: (em, events) => startRunsFor(runner, em, events),
    // The events of stores without an active flow start nothing: read, not applied.
    wanted: `exists (select 1 from flow f where f.store_id = o.store_id and f.status = 'ACTIVE')`,
  });
}
