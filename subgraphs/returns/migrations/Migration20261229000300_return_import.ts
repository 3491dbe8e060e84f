import { Migration } from '@mikro-orm/migrations';

/**
 * Returns imported from another system (`POST /stores/{storeId}/returns/bulk`). An imported return
 * has an order of its own made for it (`order.imported_at` set: no order of the store, so it
 * neither counts as ordered units nor shows in the orders API), keeps the other system's reference,
 * and each import claims one key per store (its reference, else its idempotency key) so that the
 * same return imported twice is one return.
 *
 * The returns subgraph's copy of the inventory's products also keeps their id and titles now: an
 * imported return names its products by their id.
 */
export class Migration20261229000300_return_import extends Migration {
  override name = 'Migration20261229000300_return_import';

  override up(): void {
    this.addSql('alter table returns."order" add column imported_at timestamptz');
    this.addSql(`alter table returns.return
      add column imported_at timestamptz,
      add column external_reference_id text,
      add column external_provider text`);
    this.addSql('create index return_store_reference_index on returns.return (store_id, external_reference_id) where external_reference_id is not null');
    // The list's `imported` filter walks the same keyset as the unfiltered list, among imported returns only.
    this.addSql('create index return_store_imported_updated_index on returns.return (store_id, updated_at desc, id desc) where imported_at is not null');
    this.addSql('alter table returns.return_item add column grade text');
    this.addSql('alter table returns.order_line_item add column upc text');
    this.addSql(`create table returns.return_import_key (
      store_id text not null,
      key text not null,
      -- Claimed before its return is written, in the same transaction: checked at commit.
      return_id text not null references returns.return(id) deferrable initially deferred,
      created_at timestamptz not null default now(),
      primary key (store_id, key)
    )`);

    this.addSql('alter table returns.product_fact add column product_id text, add column title text, add column variant_title text');
    this.addSql('create index product_fact_product_index on returns.product_fact (store_id, product_id)');

    // Units ordered count real orders only: the order made for an imported return is none.
    this.addSql(`create or replace function returns.order_stat_add(line_orders text[], line_skus text[], line_units bigint[]) returns void language sql as $$
      insert into returns.order_stat (store_id, slot, sku, units)
      select o.store_id, date_bin('1 hour', o.created_at, timestamptz '1970-01-01 00:00:00+00') as slot, c.sku, sum(c.units)
        from unnest(line_orders, line_skus, line_units) as c(order_id, sku, units) join returns."order" o on o.id = c.order_id
       where o.imported_at is null
       group by grouping sets ((o.store_id, slot, c.sku), (o.store_id, slot)) having sum(c.units) <> 0
    $$`);
  }
}
