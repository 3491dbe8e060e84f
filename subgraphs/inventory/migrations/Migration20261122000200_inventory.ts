import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000200_inventory extends Migration {
  override name = 'Migration20261122000200_inventory';

  override up(): void {
    this.addSql(`create table inventory.location (
      id text primary key,
      store_id text not null,
      name text not null,
      external_id text,
      created_at timestamptz not null default now()
    )`);
    this.addSql('create index location_store_index on inventory.location (store_id, created_at, id)');
    this.addSql(`create table inventory.product (
      id text primary key,
      store_id text not null,
      sku text not null,
      title text not null,
      variant_title text,
      upc text,
      image_url text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (store_id, sku)
    )`);
    // An item is one (product or sku, kind, lot) in a store; lot '' means "no lot".
    this.addSql(`create table inventory.inventory_item (
      id text primary key,
      store_id text not null,
      product_id text references inventory.product(id),
      sku text not null,
      name text not null,
      kind text not null,
      lot_number text not null default '',
      quantity integer not null default 0,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (store_id, sku, kind, lot_number)
    )`);
    this.addSql('create index inventory_item_store_updated_index on inventory.inventory_item (store_id, updated_at desc, id desc)');
    this.addSql(`create table inventory.inbound_shipment (
      id text primary key,
      store_id text not null,
      location_id text not null references inventory.location(id),
      status text not null default 'PENDING',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`);
    this.addSql('create index inbound_shipment_store_updated_index on inventory.inbound_shipment (store_id, updated_at desc, id desc)');
  }
}
