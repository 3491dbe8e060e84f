import { sql, type Orm } from '../../platform/db/orm.js';

export type Table = 'location' | 'product' | 'inventory_item' | 'inbound_shipment';

const COLUMNS: Record<Table, string> = {
  location: `id, store_id as "storeId", name, external_id as "externalId"`,
  product: `id, store_id as "storeId", sku, title, variant_title as "variantTitle"`,
  inventory_item: `id, store_id as "storeId", sku, name, kind, quantity`,
  inbound_shipment: `id, store_id as "storeId", status, created_at as "createdAt", updated_at as "updatedAt"`,
};

export class InventoryService {
  constructor(private readonly orm: Orm) {}

  async findByIds<T>(table: Table, ids: readonly string[]): Promise<(T & { id: string; storeId: string })[]> {
    return sql(this.orm.em.fork(), `select ${COLUMNS[table]} from ${table} where id = any($1)`, [ids]);
  }

  async locations(storeId: string): Promise<{ id: string; storeId: string; name: string; externalId: string | null }[]> {
    return sql(this.orm.em.fork(), `select ${COLUMNS.location} from location where store_id = $1 order by created_at, id`, [storeId]);
  }
}
