import { createConsumerQueue, outboxConsumer, startOutboxConsumer } from '../../platform/jobs/outbox-consumers.js';
import { RETRIES, type PgBoss } from '../../platform/jobs/queue.js';
import type { ModuleDeps } from '../../platform/module.js';
import { ReturnUpdated } from '../returns/public.js';
import { RestockService } from './restock.service.js';

/** This subgraph's reader of return events (its queue: `inventory-restock`), so restock retries without affecting other consumers. */
export const RESTOCK_CONSUMER = outboxConsumer('inventory-restock', [ReturnUpdated]);
export const RESTOCK_QUEUE = RESTOCK_CONSUMER.name;

export async function createRestockQueue(boss: PgBoss): Promise<void> {
  // A restock handed to the queue (it kept failing) is retried with backoff, then dead-lettered; the ledger makes retries harmless.
  await createConsumerQueue(boss, RESTOCK_CONSUMER, RETRIES.reactions);
}

export async function startRestockWorker(deps: ModuleDeps): Promise<() => Promise<void>> {
  const restock = new RestockService(deps.logger);
  return startOutboxConsumer({
    declaration: RESTOCK_CONSUMER,
    orm: deps.orm,
    boss: deps.boss,
    logger: deps.logger,
    apply: async (em, events) => {
      for (const event of events) {
        const { restocked } = await restock.handle(em, event);
        if (restocked) deps.logger.info({ eventId: event.id, returnId: event.subjectId, restocked }, 'return restocked');
      }
    },
  });
}
