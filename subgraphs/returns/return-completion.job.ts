import type { Job } from 'pg-boss';
import { OUTBOX_RETENTION_SECONDS } from '../../platform/jobs/outbox.js';
import { ensureQueue, RETRIES, type PgBoss } from '../../platform/jobs/queue.js';
import type { ModuleDeps } from '../../platform/module.js';
import { inJobBatchSpan } from '../../platform/observability/tracing.js';
import { RETURN_COMPLETION_QUEUE, type CompletionJob, type ReturnChanges } from './return-changes.service.js';

export async function createCompletionQueue(boss: PgBoss): Promise<void> {
  // A completion that fails (the database restarting) is retried; running it twice completes once. A client was
  // told the completion is queued, so an unworked job is kept as long as outbox events are (not pg-boss's 14 days).
  // One that keeps failing is dead-lettered, visible to the admin (platform/jobs/dead-letters.ts).
  await ensureQueue(boss, RETURN_COMPLETION_QUEUE, { ...RETRIES.completions, retentionSeconds: OUTBOX_RETENTION_SECONDS, deadLetters: true });
}

/**
 * Queued completions run as soon as they commit: the queue wakes its worker on
 * insert (LISTEN/NOTIFY) and polls every half second besides, so a completion
 * is normally applied well under a second after it was queued.
 */
export async function startCompletionWorker(deps: ModuleDeps, changes: ReturnChanges): Promise<void> {
  await deps.boss.work<CompletionJob>(RETURN_COMPLETION_QUEUE, { batchSize: 1, pollingIntervalSeconds: 0.5 }, (jobs: Job<CompletionJob>[]) =>
    inJobBatchSpan(RETURN_COMPLETION_QUEUE, jobs, async () => {
      for (const job of jobs) {
        const completed = await changes.completeQueued(job.data);
        deps.logger.info({ returnId: job.data.returnId, completed }, completed ? 'queued completion applied' : 'queued completion no longer applies');
      }
    }),
  );
}
