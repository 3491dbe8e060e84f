import type { EntityManager } from '@mikro-orm/postgresql';
import { Conditions, keysetPage } from '../../platform/db/keyset.js';
import type { Orm } from '../../platform/db/orm.js';
import type { Page, PageRequest } from '../../platform/api/pagination.js';
import { loadLevels, type InventoryLevelView } from './inventory-level.view.js';

export interface InventoryLevelFilters {
  locationId?: string | null;
  productId?: string | null;
  sku?: string | null;
  updatedAtMin?: Date | null;
  updatedAtMax?: Date | null;
}

/** The filter set a level list cursor is bound to. */
export function inventoryLevelListFilters(storeId: string, filters: InventoryLevelFilters): Record<string, unknown> {
  return {
    list: 'inventory-levels',
    storeId,
    locationId: filters.locationId,
    productId: filters.productId,
    sku: filters.sku,
    updatedAtMin: filters.updatedAtMin?.toISOString(),
    updatedAtMax: filters.updatedAtMax?.toISOString(),
  };
}

/** Inventory levels (a product at a location): reads only, the stock writer changes them. */
export class InventoryLevelService {
  constructor(private readonly orm: Orm) {}

  private em(): EntityManager {
    return this.orm.em.fork();
  }

  levelsByIds(ids: readonly string[]): Promise<InventoryLevelView[]> {
    return loadLevels(this.em(), ids);
  }

  /** A store's inventory levels, most recently updated first (each filter walks its own index). */
  async listLevels(storeId: string, filters: InventoryLevelFilters, page: PageRequest): Promise<Page<InventoryLevelView>> {
    const c = new Conditions();
    c.when(filters.locationId, (v) => `location_id = ${v}`)
      .when(filters.productId, (v) => `product_id = ${v}`)
      .and(`store_id = ${c.p(storeId)}`);
    // A sku names at most one product of the store (unique (store_id, sku)).
    if (filters.sku) c.and(`product_id = (select id from product where store_id = ${c.p(storeId)} and sku = ${c.p(filters.sku)})`);
    c.when(filters.updatedAtMin, (v) => `updated_at >= ${v}`).when(filters.updatedAtMax, (v) => `updated_at < ${v}`);
    const ids = await keysetPage<{ id: string }>(this.em(), { columns: 'id', from: 'product_level', where: c, sortColumn: 'updated_at', idColumn: 'id', page });
    return { ...ids, items: await loadLevels(this.em(), ids.items.map((r) => r.id)) };
  }
}
