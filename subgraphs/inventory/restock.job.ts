import type { Job } from 'pg-boss';
import { withDeadLetters } from '../../platform/dead-letters.js';
import { subscribeQueue, type OutboxEvent } from '../../platform/outbox.js';
import type { PgBoss } from '../../platform/queue.js';
import type { SubgraphDeps } from '../../platform/subgraph.js';
import { inJobBatchSpan } from '../../platform/tracing.js';
import { ReturnUpdated } from '../returns/public.js';
import { RestockService } from './restock.service.js';

/** This subgraph's own queue of return events (pg-boss pub/sub), so restock retries without affecting other consumers. */
export const RESTOCK_QUEUE = 'inventory-restock';

export async function createRestockQueue(boss: PgBoss): Promise<void> {
  // A failed restock (e.g. the database restarting) is retried with backoff, then dead-lettered; the ledger makes retries harmless.
  await subscribeQueue(boss, RESTOCK_QUEUE, [ReturnUpdated], { retryLimit: 10, retryDelay: 5, retryBackoff: true, ...(await withDeadLetters(boss, RESTOCK_QUEUE)) });
}

// Polls every half second as well as waking on notifications: restock should follow completion closely.
export async function startRestockWorker(deps: SubgraphDeps): Promise<void> {
  const restock = new RestockService(deps.orm, deps.boss, deps.logger);
  await deps.boss.work<OutboxEvent>(RESTOCK_QUEUE, { batchSize: 1, pollingIntervalSeconds: 0.5 }, (jobs: Job<OutboxEvent>[]) =>
    inJobBatchSpan(RESTOCK_QUEUE, jobs, async () => {
      for (const job of jobs) {
        const { restocked } = await restock.handle(job.data);
        if (restocked) deps.logger.info({ eventId: job.data.id, returnId: job.data.subjectId, restocked }, 'return restocked');
      }
    }),
  );
}
