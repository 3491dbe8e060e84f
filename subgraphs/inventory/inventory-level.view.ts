import type { EntityManager } from '@mikro-orm/postgresql';
import { inOrder } from '../../platform/graphql/loaders.js';
import { loadLevelRows, type InventoryLevelRow } from './inventory-level.rows.js';
import { loadLocations, type LocationRow } from './location.rows.js';
import { loadProducts, type ProductRow } from './product.rows.js';

/** A level with its product and location: what resolvers return (inventory-level.json.ts). */
export interface InventoryLevelView extends InventoryLevelRow {
  product: ProductRow;
  location: LocationRow;
}

/** Levels with their product and location, in the order of `ids` (three queries whatever the number of levels). */
export async function loadLevels(em: EntityManager, ids: readonly string[]): Promise<InventoryLevelView[]> {
  if (!ids.length) return [];
  const levels = await loadLevelRows(em, ids);
  const products = new Map((await loadProducts(em, [...new Set(levels.map((l) => l.productId))])).map((p) => [p.id, p]));
  const locations = new Map((await loadLocations(em, [...new Set(levels.map((l) => l.locationId))])).map((l) => [l.id, l]));
  return inOrder(ids, levels.map((l) => ({ ...l, product: products.get(l.productId)!, location: locations.get(l.locationId)! })));
}
