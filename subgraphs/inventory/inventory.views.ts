import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../platform/db/orm.js';
import type { InboundShipmentStatus } from './inventory.type.js';

/**
 * The read shapes of the inventory entities (camelCase, the GraphQL fields),
 * loaded by id in a few set-based queries. Resolvers return them as they are,
 * and outbox events serialise them to the REST shape (inventory.json.ts).
 */
export interface LocationRow {
  id: string;
  storeId: string;
  name: string;
  externalId: string | null;
  createdAt: Date;
}

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

export interface MoneyView {
  amount: string;
  currency: string;
}

export interface InventoryLevelView {
  locationId: string;
  locationName: string;
  quantity: number;
}

export interface InventoryItemView {
  id: string;
  storeId: string;
  productId: string | null;
  sku: string;
  name: string;
  kind: string;
  lotNumber: string | null;
  expirationDate: string | null;
  quantity: number;
  locations: InventoryLevelView[];
  createdAt: Date;
  updatedAt: Date;
}

export interface InboundShipmentItemView {
  id: string;
  product: ProductRow;
  quantity: number;
  receivedQuantity: number;
  damagedQuantity: number;
  missingQuantity: number;
}

export interface InboundShipmentView {
  id: string;
  storeId: string;
  shipmentId: string | null;
  status: InboundShipmentStatus;
  locationId: string;
  location: LocationRow;
  carrier: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
  estimatedArrivalDate: string | null;
  actualArrivalDate: string | null;
  freightType: string | null;
  paymentTerms: string | null;
  freightCost: MoneyView | null;
  dutyCost: MoneyView | null;
  items: InboundShipmentItemView[];
  skuCount: number;
  itemCount: number;
  receivedCount: number;
  createdAt: Date;
  updatedAt: Date;
}

export const LOCATION_COLUMNS = `id, store_id as "storeId", name, external_id as "externalId", created_at as "createdAt"`;
export const PRODUCT_COLUMNS = `id, store_id as "storeId", sku, title, variant_title as "variantTitle", upc, image_url as "imageUrl",
  created_at as "createdAt", updated_at as "updatedAt"`;

/** Rows in the order of `ids`, missing ones dropped. */
export function inOrder<T extends { id: string }>(ids: readonly string[], rows: T[]): T[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export async function loadLocations(em: EntityManager, ids: readonly string[]): Promise<LocationRow[]> {
  return sql<LocationRow>(em, `select ${LOCATION_COLUMNS} from location where id = any($1)`, [ids]);
}

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

type ItemRow = Omit<InventoryItemView, 'locations'>;

const ITEM_COLUMNS = `id, store_id as "storeId", product_id as "productId", sku, name, kind, nullif(lot_number, '') as "lotNumber",
  expiration_date::text as "expirationDate", quantity, created_at as "createdAt", updated_at as "updatedAt"`;

/** Items with their locations that hold stock (two queries whatever the number of items). */
export async function loadItems(em: EntityManager, ids: readonly string[]): Promise<InventoryItemView[]> {
  if (!ids.length) return [];
  const items = await sql<ItemRow>(em, `select ${ITEM_COLUMNS} from inventory_item where id = any($1)`, [ids]);
  return withLevels(em, inOrder(ids, items));
}

/** The items without a lot for `(storeId, sku, kind)` keys (entity references from other subgraphs). */
export async function loadItemsByKey(em: EntityManager, keys: readonly { storeId: string; sku: string; kind: string }[]): Promise<InventoryItemView[]> {
  const items = await sql<ItemRow>(
    em,
    `select ${ITEM_COLUMNS} from inventory_item
      where lot_number = '' and (store_id, sku, kind) in (select * from unnest($1::text[], $2::text[], $3::text[]))`,
    [keys.map((k) => k.storeId), keys.map((k) => k.sku), keys.map((k) => k.kind)],
  );
  return withLevels(em, items);
}

async function withLevels(em: EntityManager, items: ItemRow[]): Promise<InventoryItemView[]> {
  if (!items.length) return [];
  const levels = await sql<InventoryLevelView & { itemId: string }>(
    em,
    `select l.item_id as "itemId", l.location_id as "locationId", loc.name as "locationName", l.quantity
       from inventory_level l join location loc on loc.id = l.location_id
      where l.item_id = any($1) and l.quantity > 0
      order by loc.created_at, loc.id`,
    [items.map((i) => i.id)],
  );
  const byItem = new Map<string, InventoryLevelView[]>();
  for (const { itemId, ...level } of levels) byItem.set(itemId, [...(byItem.get(itemId) ?? []), level]);
  return items.map((item) => ({ ...item, locations: byItem.get(item.id) ?? [] }));
}

interface ShipmentRow extends Omit<InboundShipmentView, 'items' | 'location' | 'freightCost' | 'dutyCost' | 'skuCount' | 'itemCount' | 'receivedCount'> {
  freightCostAmount: string | null;
  freightCostCurrency: string | null;
  dutyCostAmount: string | null;
  dutyCostCurrency: string | null;
}

function money(amount: string | null, currency: string | null): MoneyView | null {
  return amount !== null && currency !== null ? { amount, currency } : null;
}

/** Shipments with their location and lines; the counts are derived from the lines here, never stored. */
export async function loadShipments(em: EntityManager, ids: readonly string[]): Promise<InboundShipmentView[]> {
  if (!ids.length) return [];
  const shipments = await sql<ShipmentRow>(
    em,
    `select id, store_id as "storeId", shipment_id as "shipmentId", status, location_id as "locationId", carrier,
            tracking_number as "trackingNumber", tracking_url as "trackingUrl",
            estimated_arrival_date::text as "estimatedArrivalDate", actual_arrival_date::text as "actualArrivalDate",
            freight_type as "freightType", payment_terms as "paymentTerms",
            freight_cost_amount::text as "freightCostAmount", freight_cost_currency as "freightCostCurrency",
            duty_cost_amount::text as "dutyCostAmount", duty_cost_currency as "dutyCostCurrency",
            created_at as "createdAt", updated_at as "updatedAt"
       from inbound_shipment where id = any($1)`,
    [ids],
  );
  const locations = await loadLocations(em, [...new Set(shipments.map((s) => s.locationId))]);
  const lines = await sql<Omit<InboundShipmentItemView, 'product'> & { shipmentId: string; productId: string }>(
      em,
      `select id, shipment_id as "shipmentId", product_id as "productId", quantity, received_quantity as "receivedQuantity",
              damaged_quantity as "damagedQuantity", missing_quantity as "missingQuantity"
         from inbound_shipment_item where shipment_id = any($1) order by shipment_id, position`,
      [ids],
  );
  const products = new Map((await loadProducts(em, [...new Set(lines.map((l) => l.productId))])).map((p) => [p.id, p]));
  const locationById = new Map(locations.map((l) => [l.id, l]));
  const linesByShipment = new Map<string, InboundShipmentItemView[]>();
  for (const { shipmentId, productId, ...line } of lines) {
    linesByShipment.set(shipmentId, [...(linesByShipment.get(shipmentId) ?? []), { ...line, product: products.get(productId)! }]);
  }
  const views = shipments.map(({ freightCostAmount, freightCostCurrency, dutyCostAmount, dutyCostCurrency, ...s }): InboundShipmentView => {
    const items = linesByShipment.get(s.id) ?? [];
    return {
      ...s,
      location: locationById.get(s.locationId)!,
      freightCost: money(freightCostAmount, freightCostCurrency),
      dutyCost: money(dutyCostAmount, dutyCostCurrency),
      items,
      skuCount: items.length,
      itemCount: items.reduce((n, i) => n + i.quantity, 0),
      receivedCount: items.reduce((n, i) => n + i.receivedQuantity, 0),
    };
  });
  return inOrder(ids, views);
}

/** A product's units at a location, every kind and lot together (`product_level`). */
export interface InventoryLevelRow {
  id: string;
  storeId: string;
  productId: string;
  locationId: string;
  product: ProductRow;
  location: LocationRow;
  quantity: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Levels with their product and location (three queries whatever the number of levels). */
export async function loadLevels(em: EntityManager, ids: readonly string[]): Promise<InventoryLevelRow[]> {
  if (!ids.length) return [];
  const levels = await sql<Omit<InventoryLevelRow, 'product' | 'location'>>(
    em,
    // A level sums items of up to 2^31 - 1 units each (bigint); as a float8 it is an exact JS number up to 2^53.
    `select id, store_id as "storeId", product_id as "productId", location_id as "locationId", quantity::float8 as quantity,
            created_at as "createdAt", updated_at as "updatedAt"
       from product_level where id = any($1)`,
    [ids],
  );
  const products = new Map((await loadProducts(em, [...new Set(levels.map((l) => l.productId))])).map((p) => [p.id, p]));
  const locations = new Map((await loadLocations(em, [...new Set(levels.map((l) => l.locationId))])).map((l) => [l.id, l]));
  return inOrder(ids, levels.map((l) => ({ ...l, product: products.get(l.productId)!, location: locations.get(l.locationId)! })));
}
