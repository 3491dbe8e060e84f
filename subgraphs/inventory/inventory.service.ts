import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Orm } from '../../platform/db/orm.js';
import { invalid, notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { Page, PageRequest } from '../../platform/pagination.js';
import type { PgBoss } from '../../platform/queue.js';
import type { AdjustInventoryInput, CreateLocationInput, ReceiveUndeclaredInput, UpsertProductInput } from './inventory.input.js';
import { InventoryKind } from './inventory.type.js';
import { check } from '../../platform/validation/index.js';
import { AdjustInventorySchema, CreateLocationSchema, ReceiveUndeclaredSchema, UpsertProductSchema } from './inventory.schemas.js';
import {
  LOCATION_COLUMNS,
  PRODUCT_COLUMNS,
  loadItems,
  loadItemsByKey,
  loadLevels,
  loadLocations,
  loadProducts,
  loadProductsBySku,
  type InventoryItemView,
  type InventoryLevelRow,
  type LocationRow,
  type ProductRow,
} from './inventory.views.js';
import { Conditions, keysetPage } from '../../platform/db/keyset.js';
import { StockWriter, syncLevelSortKeys } from './stock.js';
import { publish } from '../../platform/outbox.js';
import { ProductUpserted } from './inventory.events.js';

export interface InventoryItemFilters {
  locationId?: string | null;
  kind?: InventoryKind | null;
  sku?: string | null;
  lotNumber?: string | null;
}

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

/** The filter set a list cursor is bound to: the store, the list and every filter. */
export function inventoryItemListFilters(storeId: string, filters: InventoryItemFilters): Record<string, unknown> {
  return { list: 'inventory-items', storeId, ...filters };
}

/** An item's display name: the product title, then " - " and the variant title when there is one. */
export function itemName(product: Pick<ProductRow, 'title' | 'variantTitle'>): string {
  return product.variantTitle ? `${product.title} - ${product.variantTitle}` : product.title;
}

export async function requireLocation(em: EntityManager, storeId: string, locationId: string): Promise<LocationRow> {
  const [location] = await sql<LocationRow>(em, `select ${LOCATION_COLUMNS} from location where id = $1 and store_id = $2`, [locationId, storeId]);
  if (!location) throw notFound('location-not-found', `Location ${locationId} was not found in store ${storeId}.`);
  return location;
}

export async function productBySku(em: EntityManager, storeId: string, sku: string): Promise<ProductRow | undefined> {
  const [product] = await sql<ProductRow>(em, `select ${PRODUCT_COLUMNS} from product where store_id = $1 and sku = $2`, [storeId, sku]);
  return product;
}

/** Locations, products and inventory items: the rules of direct stock changes and the item list. */
export class InventoryService {
  constructor(
    private readonly orm: Orm,
    private readonly boss: PgBoss,
  ) {}

  private em(): EntityManager {
    return this.orm.em.fork();
  }

  locationsByIds(ids: readonly string[]): Promise<LocationRow[]> {
    return loadLocations(this.em(), ids);
  }

  productsByIds(ids: readonly string[]): Promise<ProductRow[]> {
    return loadProducts(this.em(), ids);
  }

  productsBySku(keys: readonly { storeId: string; sku: string }[]): Promise<ProductRow[]> {
    return loadProductsBySku(this.em(), keys);
  }

  itemsByIds(ids: readonly string[]): Promise<InventoryItemView[]> {
    return loadItems(this.em(), ids);
  }

  levelsByIds(ids: readonly string[]): Promise<InventoryLevelRow[]> {
    return loadLevels(this.em(), ids);
  }

  /** A store's inventory levels, most recently updated first (each filter walks its own index). */
  async listLevels(storeId: string, filters: InventoryLevelFilters, page: PageRequest): Promise<Page<InventoryLevelRow>> {
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

  itemsByKey(keys: readonly { storeId: string; sku: string; kind: string }[]): Promise<InventoryItemView[]> {
    return loadItemsByKey(this.em(), keys);
  }

  async locations(storeId: string): Promise<LocationRow[]> {
    return sql<LocationRow>(this.em(), `select ${LOCATION_COLUMNS} from location where store_id = $1 order by created_at, id`, [storeId]);
  }

  async createLocation(storeId: string, input: CreateLocationInput): Promise<LocationRow> {
    check(CreateLocationSchema, input, { prefix: '/input', detail: 'The location is invalid.' });
    const [row] = await sql<LocationRow>(
      this.em(),
      `insert into location (id, store_id, name, external_id) values ($1, $2, $3, $4) returning ${LOCATION_COLUMNS}`,
      [newId('location'), storeId, input.name.trim(), input.externalId ?? null],
    );
    return row!;
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
        const writer = new StockWriter(em, this.boss);
        writer.touch(ids);
        await writer.publish();
      }
      const p = product!;
      await publish(this.boss, em, ProductUpserted, [
        { storeId, subjectId: p.id, data: { product: { id: p.id, sku: p.sku, upc: p.upc, updatedAt: new Date(p.updatedAt).toISOString() } } },
      ]);
      return p;
    });
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
        // Unknown and undeclared stock may exist under a sku the store does not sell (yet).
        if (!product && kind !== InventoryKind.UNKNOWN && kind !== InventoryKind.UNDECLARED) {
          throw notFound('product-not-found', `No product with sku ${input.sku} in store ${storeId}.`);
        }
      }
      const writer = new StockWriter(em, this.boss);
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
