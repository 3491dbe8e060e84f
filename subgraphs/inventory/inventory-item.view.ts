import type { EntityManager } from '@mikro-orm/postgresql';
import { inOrder } from '../../platform/graphql/loaders.js';
import { loadItemLocations, loadItemRows, loadItemRowsByKey, type InventoryItemRow, type ItemLocationRow } from './inventory-item.rows.js';

/** An item with the locations that hold its units: what resolvers return and events publish (inventory-item.json.ts). */
export interface InventoryItemView extends InventoryItemRow {
  locations: Omit<ItemLocationRow, 'itemId'>[];
}

/** Items with their locations that hold stock, in the order of `ids` (two queries whatever the number of items). */
export async function loadItems(em: EntityManager, ids: readonly string[]): Promise<InventoryItemView[]> {
  if (!ids.length) return [];
  return withLocations(em, inOrder(ids, await loadItemRows(em, ids)));
}

/** The items without a lot for `(storeId, sku, kind)` keys, with their locations. */
export async function loadItemsByKey(em: EntityManager, keys: readonly { storeId: string; sku: string; kind: string }[]): Promise<InventoryItemView[]> {
  return withLocations(em, await loadItemRowsByKey(em, keys));
}

async function withLocations(em: EntityManager, items: InventoryItemRow[]): Promise<InventoryItemView[]> {
  if (!items.length) return [];
  const byItem = new Map<string, InventoryItemView['locations']>();
  for (const { itemId, ...level } of await loadItemLocations(em, items.map((i) => i.id))) byItem.set(itemId, [...(byItem.get(itemId) ?? []), level]);
  return items.map((item) => ({ ...item, locations: byItem.get(item.id) ?? [] }));
}
