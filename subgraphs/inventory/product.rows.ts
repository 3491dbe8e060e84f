import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../platform/db/orm.js';

/** One sku of a store (`product`), as resolvers return it. */
export interface ProductRow {
  id: string;
  storeId: string;
  sku: string;
  title: string;
  variantTitle: string | null;
  upc: string | null;
  imageUrl: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const PRODUCT_COLUMNS = `id, store_id as "storeId", sku, title, variant_title as "variantTitle", upc, image_url as "imageUrl",
  created_at as "createdAt", updated_at as "updatedAt"`;

export async function loadProducts(em: EntityManager, ids: readonly string[]): Promise<ProductRow[]> {
  return sql<ProductRow>(em, `select ${PRODUCT_COLUMNS} from product where id = any($1)`, [ids]);
}

export async function loadProductsBySku(em: EntityManager, keys: readonly { storeId: string; sku: string }[]): Promise<ProductRow[]> {
  return sql<ProductRow>(
    em,
    `select ${PRODUCT_COLUMNS} from product where (store_id, sku) in (select * from unnest($1::text[], $2::text[]))`,
    [keys.map((k) => k.storeId), keys.map((k) => k.sku)],
  );
}

export async function productBySku(em: EntityManager, storeId: string, sku: string): Promise<ProductRow | undefined> {
  const [product] = await sql<ProductRow>(em, `select ${PRODUCT_COLUMNS} from product where store_id = $1 and sku = $2`, [storeId, sku]);
  return product;
}
