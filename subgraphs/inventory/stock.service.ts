import type { EntityManager } from '@mikro-orm/postgresql';
import { isOutOfRange, sql } from '../../platform/db/orm.js';
import { conflict, invalid } from '../../platform/errors.js';
import { INT32_MAX } from '../../platform/validation/index.js';
import { newId } from '../../platform/ids.js';
import { publish } from '../../platform/jobs/outbox.js';
import { InventoryItemCreated, InventoryItemUpdated } from './inventory.events.js';
import { inventoryItemJson } from './inventory-item.json.js';
import { isStockDelta, type ItemKey } from './inventory-item.rules.js';
import { loadItems, type InventoryItemView } from './inventory-item.view.js';

/** One change of on-hand units of an item (found or created by store, sku, kind and lot) at a location. */
export interface StockChange extends ItemKey {
  storeId: string;
  productId: string | null;
  name: string;
  expirationDate?: string | null;
  locationId: string;
  delta: number;
}

/**
 * Rewrites an item's sort key into its location rows, which keep a copy so a
 * list filtered by location walks one index. Every statement that moves an
 * item's `updated_at` goes through here, in the same transaction.
 */
export async function syncLevelSortKeys(em: EntityManager, itemIds: readonly string[]): Promise<void> {
  await sql(
    em,
    `update inventory_level l set item_updated_at = i.updated_at
       from inventory_item i where i.id = l.item_id and i.id = any($1) and l.item_updated_at is distinct from i.updated_at`,
    [itemIds],
  );
}

/**
 * Applies stock changes inside the caller's transaction and publishes one
 * `inventory_item.created|updated` event per item touched (`publish()`, before
 * commit). Units move with atomic `quantity = quantity + delta` updates on
 * rows locked by the upsert, so concurrent writers never lose or double units,
 * and a removal that would go below zero is refused instead of clamped.
 */
export class StockWriter {
  /** Item id -> whether this transaction created it. */
  private readonly touched = new Map<string, boolean>();

  constructor(private readonly em: EntityManager) {}

  /** Applies one change; a total that would pass what its column holds is a 409 naming the bound (the transaction is then aborted). */
  async apply(change: StockChange): Promise<string> {
    try {
      return await this.applyUnbounded(change);
    } catch (err) {
      if (!isOutOfRange(err)) throw err;
      throw conflict('quantity-out-of-range', `Adding ${change.delta} units of ${change.sku} (${change.kind}) would take its stock past ${INT32_MAX} units.`);
    }
  }

  private async applyUnbounded(change: StockChange): Promise<string> {
    if (!isStockDelta(change.delta)) throw invalid('validation-failed', 'A stock change must be a non-zero integer.');
    const lot = change.lotNumber ?? '';
    // The upsert locks the item row: concurrent changes of the same item queue here.
    const [item] = await sql<{ id: string; productId: string | null; created: boolean }>(
      this.em,
      `insert into inventory_item (id, store_id, product_id, sku, name, kind, lot_number, expiration_date)
       values ($1, $2, $3, $4, $5, $6, $7, $8)
       on conflict (store_id, sku, kind, lot_number) do update
         set expiration_date = coalesce(excluded.expiration_date, inventory_item.expiration_date)
       returning id, product_id as "productId", (xmax = 0) as created`,
      [newId('inventoryItem'), change.storeId, change.productId, change.sku, change.name, change.kind, lot, change.expirationDate ?? null],
    );
    const itemId = item!.id;
    if (change.delta > 0) {
      await sql(
        this.em,
        `insert into inventory_level (item_id, location_id, store_id, kind, sku, lot_number, quantity, item_updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, now())
         on conflict (item_id, location_id) do update set quantity = inventory_level.quantity + excluded.quantity, updated_at = now()`,
        [itemId, change.locationId, change.storeId, change.kind, change.sku, lot, change.delta],
      );
    } else {
      const updated = await sql(
        this.em,
        `update inventory_level set quantity = quantity + $3, updated_at = now()
          where item_id = $1 and location_id = $2 and quantity + $3 >= 0 returning quantity`,
        [itemId, change.locationId, change.delta],
      );
      if (!updated.length) {
        const [level] = await sql<{ quantity: number }>(this.em, 'select quantity from inventory_level where item_id = $1 and location_id = $2', [itemId, change.locationId]);
        throw conflict(
          'insufficient-stock',
          `Cannot remove ${-change.delta} units of ${change.sku} (${change.kind}): ${level?.quantity ?? 0} on hand at location ${change.locationId}.`,
        );
      }
    }
    if (item!.productId) await this.applyToProductLevel(change, item!.productId);
    await sql(this.em, 'update inventory_item set quantity = quantity + $2, updated_at = now() where id = $1', [itemId, change.delta]);
    await syncLevelSortKeys(this.em, [itemId]);
    this.touched.set(itemId, (this.touched.get(itemId) ?? false) || item!.created);
    return itemId;
  }

  /**
   * The product's level at the location (every kind and lot together) moves
   * with the item's, in the same transaction. A removal already passed the
   * item's own check, so the level holds at least as many units.
   */
  private async applyToProductLevel(change: StockChange, productId: string): Promise<void> {
    await sql(
      this.em,
      `insert into product_level (id, store_id, product_id, location_id, quantity) values ($1, $2, $3, $4, greatest($5, 0))
       on conflict (product_id, location_id) do update set quantity = product_level.quantity + $5, updated_at = now()`,
      [newId('inventoryLevel'), change.storeId, productId, change.locationId, change.delta],
    );
  }

  /** Marks items changed by other statements (e.g. a renamed product) so they get their event too. */
  touch(itemIds: readonly string[]): void {
    for (const id of itemIds) if (!this.touched.has(id)) this.touched.set(id, false);
  }

  /** Publishes the events of every item touched and returns their current state. */
  async publish(): Promise<InventoryItemView[]> {
    const items = await loadItems(this.em, [...this.touched.keys()].sort());
    const event = (item: InventoryItemView) => ({ storeId: item.storeId, subjectId: item.id, data: { inventory_item: inventoryItemJson(item) } });
    await publish(this.em, InventoryItemCreated, items.filter((i) => this.touched.get(i.id)).map(event));
    await publish(this.em, InventoryItemUpdated, items.filter((i) => !this.touched.get(i.id)).map(event));
    return items;
  }
}
