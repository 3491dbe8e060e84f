import type { EntityManager } from '../../platform/db/orm.js';
import { sql } from '../../platform/db/orm.js';
import { createConsumerQueue, outboxConsumer, startOutboxConsumer } from '../../platform/jobs/outbox-consumers.js';
import { isEventOf, type OutboxEvent } from '../../platform/jobs/outbox.js';
import { RETRIES, type PgBoss } from '../../platform/jobs/queue.js';
import type { ModuleDeps } from '../../platform/module.js';
import { ProductUpserted } from '../inventory/public.js';

/** This subgraph's reader of product events (its queue: `returns-product-facts`): the UPCs return items show, the products imported returns name. */
export const PRODUCT_FACTS_CONSUMER = outboxConsumer('returns-product-facts', [ProductUpserted]);
export const PRODUCT_FACTS_QUEUE = PRODUCT_FACTS_CONSUMER.name;

export async function createProductFactsQueue(boss: PgBoss): Promise<void> {
  await createConsumerQueue(boss, PRODUCT_FACTS_CONSUMER, RETRIES.reactions);
}

/** Keeps the newest fact of each (store, sku): a redelivered or late event never overwrites a newer one. */
export async function applyProductEvent(em: EntityManager, event: OutboxEvent): Promise<void> {
  if (!isEventOf(ProductUpserted, event) || event.version !== 1) return;
  const { id, sku, upc, title, variantTitle } = event.data.product;
  await sql(
    em,
    `insert into product_fact (store_id, sku, upc, sequence, product_id, title, variant_title) values ($1, $2, $3, $4, $5, $6, $7)
     on conflict (store_id, sku) do update set upc = excluded.upc, sequence = excluded.sequence, updated_at = now(),
       product_id = excluded.product_id, title = coalesce(excluded.title, product_fact.title), variant_title = case when excluded.title is null then product_fact.variant_title else excluded.variant_title end
       where product_fact.sequence <= excluded.sequence`,
    [event.storeId, sku, upc, event.sequence ?? 0, id, title ?? null, variantTitle ?? null],
  );
}

export function startProductFactsWorker(deps: ModuleDeps): Promise<() => Promise<void>> {
  return startOutboxConsumer({
    declaration: PRODUCT_FACTS_CONSUMER,
    orm: deps.orm,
    boss: deps.boss,
    logger: deps.logger,
    apply: async (em, events) => {
      for (const event of events) await applyProductEvent(em, event);
    },
  });
}
