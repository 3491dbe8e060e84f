import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../platform/db/orm.js';
import type { InventoryKind } from './inventory-item.rules.js';

/** One (sku, kind, lot) of a store (`inventory_item`); `quantity` is the total on hand. */
export interface InventoryItemRow {
  id: string;
  storeId: string;
  productId: string | null;
  sku: string;
  name: string;
  kind: InventoryKind;
  lotNumber: string | null;
  expirationDate: string | null;
  quantity: number;
  createdAt: Date;
  updatedAt: Date;
}

/** An item's units at one location (`inventory_level`), with the location's name. */
export interface ItemLocationRow {
  itemId: string;
  locationId: string;
  locationName: string;
  quantity: number;
}

const ITEM_COLUMNS = `id, store_id as "storeId", product_id as "productId", sku, name, kind, nullif(lot_number, '') as "lotNumber",
  expiration_date::text as "expirationDate", quantity, created_at as "createdAt", updated_at as "updatedAt"`;

export async function loadItemRows(em: EntityManager, ids: readonly string[]): Promise<InventoryItemRow[]> {
  return sql<InventoryItemRow>(em, `select ${ITEM_COLUMNS} from inventory_item where id = any($1)`, [ids]);
}

/** The items without a lot for `(storeId, sku, kind)` keys (entity references from other subgraphs). */
export async function loadItemRowsByKey(em: EntityManager, keys: readonly { storeId: string; sku: string; kind: string }[]): Promise<InventoryItemRow[]> {
  return sql<InventoryItemRow>(
    em,
    `select ${ITEM_COLUMNS} from inventory_item
      where lot_number = '' and (store_id, sku, kind) in (select * from unnest($1::text[], $2::text[], $3::text[]))`,
    [keys.map((k) => k.storeId), keys.map((k) => k.sku), keys.map((k) => k.kind)],
  );
}

/** The locations holding units of the items (quantity > 0), oldest location first. */
/** A store's item ids after `afterId` (none: from the first), in id order: a page of a webhook backfill. */
export async function itemIdsAfter(em: EntityManager, storeId: string, afterId: string | null, limit: number): Promise<string[]> {
  const rows = await sql<{ id: string }>(em, `select id from inventory_item where store_id = $1 and ($2::text is null or id > $2) order by id limit $3`, [storeId, afterId, limit]);
  return rows.map((r) => r.id);
}

export async function loadItemLocations(em: EntityManager, itemIds: readonly string[]): Promise<ItemLocationRow[]> {
  return sql<ItemLocationRow>(
    em,
    `select l.item_id as "itemId", l.location_id as "locationId", loc.name as "locationName", l.quantity
       from inventory_level l join location loc on loc.id = l.location_id
      where l.item_id = any($1) and l.quantity > 0
      order by loc.created_at, loc.id`,
    [itemIds],
  );
}
