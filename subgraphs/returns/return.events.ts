import type { EntityManager } from '@mikro-orm/postgresql';
import { outboxContract, publish } from '../../platform/outbox.js';
import type { PgBoss } from '../../platform/queue.js';
import { restOrder, type RestOrder } from './order.json.js';
import { restReturn, type RestReturn } from './return.json.js';
import type { ReturnReads } from './return.rows.js';
import type { StoreSettingsService } from './store-settings.service.js';

/**
 * The events the returns subgraph publishes (version 1), for restock, webhooks
 * and flows. `return` and `order` are the REST documents; `items` carries what
 * consumers need of each active item that the REST document does not show
 * (the line's title).
 */
export interface ReturnEventData {
  return: RestReturn;
  order: RestOrder;
  /** The status before the change (`null` on creation). */
  previousStatus: string | null;
  /** The store's return location when the change committed (restock goes there), or null. */
  destinationLocationId: string | null;
  /** `restock: false`: completion leaves the item out of stock (processed so, or rejected). */
  items: { id: string; sku: string | null; title: string | null; quantity: number; restock: boolean }[];
}

export const ReturnCreated = outboxContract<ReturnEventData>()('return.created', 'return');
/** Every committed change of a return: status, items, shipment, comments. */
export const ReturnUpdated = outboxContract<ReturnEventData>()('return.updated', 'return');

export const RETURN_EVENTS = [ReturnCreated, ReturnUpdated] as const;

/** Publishes a return's new state in the caller's transaction. */
export class ReturnEvents {
  constructor(
    private readonly boss: PgBoss,
    private readonly reads: ReturnReads,
    private readonly settings: StoreSettingsService,
  ) {}

  async emit(em: EntityManager, contract: typeof ReturnCreated | typeof ReturnUpdated, returnId: string, previousStatus: string | null) {
    const [view] = await this.reads.views([returnId], em);
    const settings = await this.settings.get(view!.storeId, em);
    await publish(this.boss, em, contract, [
      {
        storeId: view!.storeId,
        subjectId: returnId,
        data: {
          return: restReturn(view!),
          order: restOrder(view!.prefetchedOrder!),
          previousStatus,
          destinationLocationId: settings.returnLocationId,
          items: view!.items.map((item) => ({ id: item.id, sku: item.sku, title: item.title, quantity: item.quantity, restock: item.restock })),
        },
      },
    ]);
    return view!;
  }
}
