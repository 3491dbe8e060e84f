import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../platform/db/orm.js';
import { newId } from '../../platform/ids.js';
import type { Logger } from '../../platform/observability/logger.js';
import type { OutboxEvent } from '../../platform/jobs/outbox.js';
import { productBySku } from './product.rows.js';
import { completedReturn, restockedItem } from './restock.rules.js';
import { StockWriter } from './stock.service.js';

/** The location restocks land at when the store has no return location (created on demand). */
const RETURNS_LOCATION_NAME = 'Returns';

/**
 * Restocks completed returns: each return item is added once, ever, as kind
 * RETURN (its sku is a product of the store) or UNKNOWN (it is not), at the
 * return's destination location. The ledger row of the return item and the
 * stock change commit together, so a redelivered event, a job run twice or a
 * return completed again after a reopen finds the ledger row and adds nothing.
 */
export class RestockService {
  constructor(private readonly logger: Logger) {}

  /** Restocks the return of a completion event in the caller's transaction (the one that consumes the event). */
  async handle(em: EntityManager, event: OutboxEvent): Promise<{ restocked: number }> {
    const completed = completedReturn(event);
    if (!completed || !completed.items.length) return { restocked: 0 };
    const writer = new StockWriter(em);
    let locationId: string | undefined;
    let restocked = 0;
    // Ledger rows in item order: two runs of the same event queue on the first row instead of deadlocking.
    for (const item of [...completed.items].sort((a, b) => (a.id < b.id ? -1 : 1))) {
      const [claimed] = await sql<{ returnItemId: string }>(
        em,
        `insert into restock_ledger (return_item_id, store_id, return_id, event_id, quantity) values ($1, $2, $3, $4, $5)
         on conflict (return_item_id) do nothing returning return_item_id as "returnItemId"`,
        [item.id, event.storeId, completed.returnId, event.id, item.quantity],
      );
      if (!claimed) continue;
      if (!item.sku) {
        // Nothing to file the units under: the ledger records the item as handled, without stock.
        this.logger.warn({ returnId: completed.returnId, returnItemId: item.id }, 'return item without sku not restocked');
        continue;
      }
      locationId ??= await this.destination(em, event.storeId, completed.destinationLocationId);
      const product = await productBySku(em, event.storeId, item.sku);
      const itemId = await writer.apply({ storeId: event.storeId, ...restockedItem(item.sku, item.title, product), locationId, delta: item.quantity });
      await sql(em, 'update restock_ledger set inventory_item_id = $2, location_id = $3 where return_item_id = $1', [item.id, itemId, locationId]);
      restocked++;
    }
    await writer.publish();
    return { restocked };
  }

  /**
   * The return's destination when it is a location of the store; otherwise the
   * store's "Returns" location, created on demand (a transaction-scoped
   * advisory lock keeps two concurrent restocks from creating two).
   */
  private async destination(em: EntityManager, storeId: string, destinationLocationId: string | null): Promise<string> {
    if (destinationLocationId) {
      const [found] = await sql<{ id: string }>(em, 'select id from location where id = $1 and store_id = $2', [destinationLocationId, storeId]);
      if (found) return found.id;
      this.logger.warn({ storeId, destinationLocationId }, 'return destination is not a location of the store; restocking at "Returns"');
    }
    await sql(em, 'select pg_advisory_xact_lock(hashtext($1))', [`inventory:returns-location:${storeId}`]);
    const [existing] = await sql<{ id: string }>(em, 'select id from location where store_id = $1 and name = $2 order by created_at, id limit 1', [storeId, RETURNS_LOCATION_NAME]);
    if (existing) return existing.id;
    const [created] = await sql<{ id: string }>(em, 'insert into location (id, store_id, name) values ($1, $2, $3) returning id', [newId('location'), storeId, RETURNS_LOCATION_NAME]);
    return created!.id;
  }
}
