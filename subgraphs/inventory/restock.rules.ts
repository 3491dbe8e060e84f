import { isEventOf, type OutboxEvent } from '../../platform/jobs/outbox.js';
import { ReturnUpdated } from '../returns/public.js';
import { InventoryKind, itemName } from './inventory-item.rules.js';
import type { ProductRow } from './product.rows.js';

/** What restock needs of a completion: the `return.updated` contract of the returns subgraph, read when the return is complete. */
export function completedReturn(event: OutboxEvent) {
  if (!isEventOf(ReturnUpdated, event) || event.data.return.status !== 'complete') return null;
  // Items processed not to be restocked stay out (events from before the flag existed restock every item).
  return { returnId: event.subjectId, destinationLocationId: event.data.destinationLocationId, items: event.data.items.filter((i) => i.restock !== false) };
}

/**
 * The item a returned sku is filed under: a product of the store is RETURN
 * stock named after the product; any other sku is UNKNOWN stock named after
 * the returned item's title (or the sku).
 */
export function restockedItem(sku: string, title: string | null, product: Pick<ProductRow, 'id' | 'title' | 'variantTitle'> | undefined) {
  return product
    ? { productId: product.id, sku, name: itemName(product), kind: InventoryKind.RETURN }
    : { productId: null, sku, name: title ?? sku, kind: InventoryKind.UNKNOWN };
}
