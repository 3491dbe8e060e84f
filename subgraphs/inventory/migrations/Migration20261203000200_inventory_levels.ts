import { Migration } from '@mikro-orm/migrations';

/**
 * Inventory levels of the real platform's API 2.2: the units of one product at
 * one location, whatever their kind or lot. Kept by the stock writer in the
 * transaction of every stock change (not summed on read), so the list pages
 * by keyset on its own indexes. Filled here from the stock already held.
 */
export class Migration20261203000200_inventory_levels extends Migration {
  override name = 'Migration20261203000200_inventory_levels';

  override up(): void {
    this.addSql(`create table inventory.product_level (
      id text primary key,
      store_id text not null,
      product_id text not null references inventory.product(id),
      location_id text not null references inventory.location(id),
      quantity integer not null default 0 check (quantity >= 0),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (product_id, location_id)
    )`);
    this.addSql('create index product_level_store_index on inventory.product_level (store_id, updated_at desc, id desc)');
    this.addSql('create index product_level_location_index on inventory.product_level (location_id, updated_at desc, id desc)');
    this.addSql('create index product_level_product_index on inventory.product_level (product_id, updated_at desc, id desc)');
    this.addSql(`insert into inventory.product_level (id, store_id, product_id, location_id, quantity, created_at, updated_at)
      select 'ivl_' || upper(substr(md5(i.product_id || '/' || l.location_id), 1, 26)), i.store_id, i.product_id, l.location_id,
             sum(l.quantity), min(l.created_at), max(l.updated_at)
        from inventory.inventory_level l join inventory.inventory_item i on i.id = l.item_id
       where i.product_id is not null
       group by i.store_id, i.product_id, l.location_id`);
  }
}
