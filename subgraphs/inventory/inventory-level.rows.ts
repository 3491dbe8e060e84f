import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../platform/db/orm.js';

/**
 * A product's units at a location, every kind and lot together
 * (`product_level`): the REST inventory level, changed by the stock writer
 * with the levels of the product's items.
 */
export interface InventoryLevelRow {
  id: string;
  storeId: string;
  productId: string;
  locationId: string;
  quantity: number;
  createdAt: Date;
  updatedAt: Date;
}

export async function loadLevelRows(em: EntityManager, ids: readonly string[]): Promise<InventoryLevelRow[]> {
  return sql<InventoryLevelRow>(
    em,
    // A level sums items of up to 2^31 - 1 units each (bigint); as a float8 it is an exact JS number up to 2^53.
    `select id, store_id as "storeId", product_id as "productId", location_id as "locationId", quantity::float8 as quantity,
            created_at as "createdAt", updated_at as "updatedAt"
       from product_level where id = any($1)`,
    [ids],
  );
}
