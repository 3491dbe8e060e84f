import type { EntityManager } from '@mikro-orm/postgresql';
import { Conditions, keysetPage } from '../../platform/db/keyset.js';
import { sql, type Orm } from '../../platform/db/orm.js';
import { invalid, notFound } from '../../platform/errors.js';
import type { Page, PageRequest } from '../../platform/api/pagination.js';
import { check } from '../../platform/validation/index.js';
import type { AdjustInventoryInput, ReceiveUndeclaredInput } from './inventory-item.input.js';
import { itemName, kindNeedsProduct, InventoryKind } from './inventory-item.rules.js';
import { AdjustInventorySchema, ReceiveUndeclaredSchema } from './inventory-item.schemas.js';
import { loadItems, loadItemsByKey, type InventoryItemView } from './inventory-item.view.js';
import { requireLocation } from './location.rows.js';
import { PRODUCT_COLUMNS, productBySku, type ProductRow } from './product.rows.js';
import { StockWriter } from './stock.service.js';

export interface InventoryItemFilters {
  locationId?: string | null;
  kind?: InventoryKind | null;
  sku?: string | null;
  lotNumber?: string | null;
}

/** The filter set a list cursor is bound to: the store, the list and every filter. */
export function inventoryItemListFilters(storeId: string, filters: InventoryItemFilters): Record<string, unknown> {
  return { list: 'inventory-items', storeId, ...filters };
}

// Moved to inventory-item.json.ts; re-exported only while index.ts (being rewritten) imports it from here.
export { inventoryItemDocumentsPage } from './inventory-item.json.js';

/** Inventory items: direct stock changes and the item list. */
export class InventoryItemService {
  constructor(private readonly orm: Orm) {}

  private em(): EntityManager {
    return this.orm.em.fork();
  }

  itemsByIds(ids: readonly string[]): Promise<InventoryItemView[]> {
    return loadItems(this.em(), ids);
  }

  itemsByKey(keys: readonly { storeId: string; sku: string; kind: string }[]): Promise<InventoryItemView[]> {
    return loadItemsByKey(this.em(), keys);
  }

  /** Adds or removes units of a product (or a sku) at a location; never below zero. */
  async adjustInventory(storeId: string, input: AdjustInventoryInput): Promise<InventoryItemView> {
    const kind = input.kind ?? InventoryKind.PRODUCT;
    check(AdjustInventorySchema, input, { prefix: '/input', detail: 'The adjustment is invalid.' });
    return this.em().transactional(async (em) => {
      await requireLocation(em, storeId, input.locationId);
      let product: ProductRow | undefined;
      if (input.productId) {
        [product] = await sql<ProductRow>(em, `select ${PRODUCT_COLUMNS} from product where id = $1 and store_id = $2`, [input.productId, storeId]);
        if (!product) throw notFound('product-not-found', `Product ${input.productId} was not found in store ${storeId}.`);
        if (input.sku && input.sku !== product.sku) {
          throw invalid('validation-failed', 'The sku does not match the product.', [{ pointer: '/input/sku', detail: `product ${product.id} has sku ${product.sku}` }]);
        }
      } else {
        product = await productBySku(em, storeId, input.sku!);
        if (!product && kindNeedsProduct(kind)) throw notFound('product-not-found', `No product with sku ${input.sku} in store ${storeId}.`);
      }
      const writer = new StockWriter(em);
      await writer.apply({
        storeId,
        productId: product?.id ?? null,
        sku: product?.sku ?? input.sku!,
        name: product ? itemName(product) : input.sku!,
        kind,
        lotNumber: input.lotNumber,
        expirationDate: input.expirationDate,
        locationId: input.locationId,
        delta: input.delta,
      });
      const [item] = await writer.publish();
      return item!;
    });
  }

  /** Stock that arrived without an inbound shipment line declaring it: kind UNDECLARED. */
  async receiveUndeclared(storeId: string, input: ReceiveUndeclaredInput): Promise<InventoryItemView> {
    check(ReceiveUndeclaredSchema, input, { prefix: '/input', detail: 'The receipt is invalid.' });
    return this.adjustInventory(storeId, { sku: input.sku, locationId: input.locationId, kind: InventoryKind.UNDECLARED, delta: input.quantity });
  }

  /**
   * A page of items with stock, most recently updated first. With a location,
   * the walk is over that location's rows (which carry the item's sort key)
   * and `quantity` is the quantity there.
   */
  async listItems(storeId: string, filters: InventoryItemFilters, page: PageRequest): Promise<Page<InventoryItemView>> {
    const c = new Conditions();
    c.when(filters.locationId, (v) => `location_id = ${v}`)
      .and(`store_id = ${c.p(storeId)}`)
      .and('quantity > 0')
      .when(filters.kind, (v) => `kind = ${v}`)
      .when(filters.sku, (v) => `sku = ${v}`)
      .when(filters.lotNumber, (v) => `lot_number = ${v}`);
    const ids = filters.locationId
      ? await keysetPage<{ id: string; locationQuantity?: number }>(this.em(), {
          columns: 'item_id as id, quantity as "locationQuantity"',
          from: 'inventory_level',
          where: c,
          sortColumn: 'item_updated_at',
          idColumn: 'item_id',
          page,
        })
      : await keysetPage<{ id: string; locationQuantity?: number }>(this.em(), { columns: 'id', from: 'inventory_item', where: c, sortColumn: 'updated_at', idColumn: 'id', page });
    const items = new Map((await loadItems(this.em(), ids.items.map((r) => r.id))).map((i) => [i.id, i]));
    return {
      ...ids,
      items: ids.items.flatMap((row) => {
        const item = items.get(row.id);
        if (!item) return [];
        return [row.locationQuantity === undefined ? item : { ...item, quantity: row.locationQuantity }];
      }),
    };
  }
}
