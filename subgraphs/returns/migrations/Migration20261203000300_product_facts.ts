import { Migration } from '@mikro-orm/migrations';

/**
 * The returns subgraph's copy of what it shows of the inventory subgraph's
 * products (their UPC on return items), kept from `product.upserted` events:
 * a subgraph never reads another's tables. `sequence` is the event's position
 * in the product's commit order, so a late retry never overwrites a newer fact.
 */
export class Migration20261203000300_product_facts extends Migration {
  override name = 'Migration20261203000300_product_facts';

  override up(): void {
    this.addSql(`create table returns.product_fact (
      store_id text not null,
      sku text not null,
      upc text,
      sequence bigint not null default 0,
      updated_at timestamptz not null default now(),
      primary key (store_id, sku)
    )`);
  }
}
