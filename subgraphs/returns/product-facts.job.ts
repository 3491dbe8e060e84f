import type { Job } from 'pg-boss';
import { withDeadLetters } from '../../platform/dead-letters.js';
import { sql, type Orm } from '../../platform/db/orm.js';
import { isEventOf, subscribeQueue, type OutboxEvent } from '../../platform/outbox.js';
import type { PgBoss } from '../../platform/queue.js';
import type { SubgraphDeps } from '../../platform/subgraph.js';
import { inJobBatchSpan } from '../../platform/tracing.js';
import { ProductUpserted } from '../inventory/public.js';

/** This subgraph's own queue of product events: the UPCs return items show. */
export const PRODUCT_FACTS_QUEUE = 'returns-product-facts';

export async function createProductFactsQueue(boss: PgBoss): Promise<void> {
  await subscribeQueue(boss, PRODUCT_FACTS_QUEUE, [ProductUpserted], { retryLimit: 10, retryDelay: 5, retryBackoff: true, ...(await withDeadLetters(boss, PRODUCT_FACTS_QUEUE)) });
}

/** Keeps the newest fact of each (store, sku): a redelivered or late event never overwrites a newer one. */
export async function applyProductEvent(orm: Orm, event: OutboxEvent): Promise<void> {
  if (!isEventOf(ProductUpserted, event) || event.version !== 1) return;
  const { sku, upc } = event.data.product;
  await sql(
    orm.em.fork(),
    `insert into product_fact (store_id, sku, upc, sequence) values ($1, $2, $3, $4)
     on conflict (store_id, sku) do update set upc = excluded.upc, sequence = excluded.sequence, updated_at = now()
       where product_fact.sequence <= excluded.sequence`,
    [event.storeId, sku, upc, event.sequence ?? 0],
  );
}

export async function startProductFactsWorker(deps: SubgraphDeps): Promise<void> {
  await deps.boss.work<OutboxEvent>(PRODUCT_FACTS_QUEUE, { batchSize: 10, pollingIntervalSeconds: 0.5 }, (jobs: Job<OutboxEvent>[]) =>
    inJobBatchSpan(PRODUCT_FACTS_QUEUE, jobs, async () => {
      for (const job of jobs) await applyProductEvent(deps.orm, job.data);
    }),
  );
}
