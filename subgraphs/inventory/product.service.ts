import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Orm } from '../../platform/db/orm.js';
import { newId } from '../../platform/ids.js';
import { publish } from '../../platform/jobs/outbox.js';
import { check } from '../../platform/validation/index.js';
import { itemName } from './inventory-item.rules.js';
import { ProductUpserted } from './inventory.events.js';
import type { UpsertProductInput } from './product.input.js';
import { PRODUCT_COLUMNS, loadProducts, loadProductsBySku, type ProductRow } from './product.rows.js';
import { UpsertProductSchema } from './product.schemas.js';
import { StockWriter, syncLevelSortKeys } from './stock.service.js';

/** A store's products (one per sku); item names follow them. */
export class ProductService {
  constructor(private readonly orm: Orm) {}

  private em(): EntityManager {
    return this.orm.em.fork();
  }

  productsByIds(ids: readonly string[]): Promise<ProductRow[]> {
    return loadProducts(this.em(), ids);
  }

  productsBySku(keys: readonly { storeId: string; sku: string }[]): Promise<ProductRow[]> {
    return loadProductsBySku(this.em(), keys);
  }

  /**
   * Creates or updates the product of a sku. Item names come from their
   * product, so items whose name changes are renamed (and announced) in the
   * same transaction.
   */
  async upsertProduct(storeId: string, input: UpsertProductInput): Promise<ProductRow> {
    check(UpsertProductSchema, input, { prefix: '/input', detail: 'The product is invalid.' });
    return this.em().transactional(async (em) => {
      const [product] = await sql<ProductRow>(
        em,
        `insert into product (id, store_id, sku, title, variant_title, upc, image_url) values ($1, $2, $3, $4, $5, $6, $7)
         on conflict (store_id, sku) do update set title = excluded.title, variant_title = excluded.variant_title,
           upc = excluded.upc, image_url = excluded.image_url, updated_at = now()
         returning ${PRODUCT_COLUMNS}`,
        [newId('product'), storeId, input.sku.trim(), input.title.trim(), input.variantTitle ?? null, input.upc ?? null, input.imageUrl ?? null],
      );
      const renamed = await sql<{ id: string }>(
        em,
        'update inventory_item set name = $2, updated_at = now() where product_id = $1 and name <> $2 returning id',
        [product!.id, itemName(product!)],
      );
      if (renamed.length) {
        const ids = renamed.map((r) => r.id);
        await syncLevelSortKeys(em, ids);
        const writer = new StockWriter(em);
        writer.touch(ids);
        await writer.publish();
      }
      const p = product!;
      await publish(em, ProductUpserted, [
        { storeId, subjectId: p.id, data: { product: { id: p.id, sku: p.sku, upc: p.upc, updatedAt: new Date(p.updatedAt).toISOString(), title: p.title, variantTitle: p.variantTitle } } },
      ]);
      return p;
    });
  }
}
