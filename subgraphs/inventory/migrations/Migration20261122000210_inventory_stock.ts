import { Migration } from '@mikro-orm/migrations';

/**
 * Stock per location, inbound shipment details and lines, and the restock
 * ledger. Lists only show rows with stock, so their indexes are partial on
 * `quantity > 0`: items at zero stay in the table (with their history) but
 * cost nothing to skip.
 */
export class Migration20261122000210_inventory_stock extends Migration {
  override name = 'Migration20261122000210_inventory_stock';

  override up(): void {
    this.addSql('alter table inventory.inventory_item add column expiration_date date');
    this.addSql('alter table inventory.inventory_item add constraint inventory_item_quantity_check check (quantity >= 0)');
    // Replaced by the partial keyset indexes below (items at zero are never listed).
    this.addSql('drop index inventory.inventory_item_store_updated_index');
    this.addSql('create index inventory_item_list_index on inventory.inventory_item (store_id, updated_at desc, id desc) where quantity > 0');
    this.addSql('create index inventory_item_kind_index on inventory.inventory_item (store_id, kind, updated_at desc, id desc) where quantity > 0');
    this.addSql('create index inventory_item_sku_index on inventory.inventory_item (store_id, sku, updated_at desc, id desc) where quantity > 0');
    this.addSql('create index inventory_item_lot_index on inventory.inventory_item (store_id, lot_number, updated_at desc, id desc) where quantity > 0');
    this.addSql('create index inventory_item_product_index on inventory.inventory_item (product_id)');

    // One row per (item, location). The item's immutable classification (kind, sku, lot)
    // and its sort key (`item_updated_at`, rewritten whenever the item changes) are copied
    // here so a list filtered by location walks one index in keyset order.
    this.addSql(`create table inventory.inventory_level (
      item_id text not null references inventory.inventory_item(id),
      location_id text not null references inventory.location(id),
      store_id text not null,
      kind text not null,
      sku text not null,
      lot_number text not null,
      quantity integer not null default 0 check (quantity >= 0),
      item_updated_at timestamptz not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (item_id, location_id)
    )`);
    this.addSql('create index inventory_level_list_index on inventory.inventory_level (location_id, item_updated_at desc, item_id desc) where quantity > 0');
    this.addSql('create index inventory_level_kind_index on inventory.inventory_level (location_id, kind, item_updated_at desc, item_id desc) where quantity > 0');
    this.addSql('create index inventory_level_sku_index on inventory.inventory_level (location_id, sku, item_updated_at desc, item_id desc) where quantity > 0');
    this.addSql('create index inventory_level_lot_index on inventory.inventory_level (location_id, lot_number, item_updated_at desc, item_id desc) where quantity > 0');

    this.addSql(`alter table inventory.inbound_shipment
      add column shipment_id text,
      add column carrier text,
      add column tracking_number text,
      add column tracking_url text,
      add column estimated_arrival_date date,
      add column actual_arrival_date date,
      add column freight_type text,
      add column payment_terms text,
      add column freight_cost_amount numeric,
      add column freight_cost_currency text,
      add column duty_cost_amount numeric,
      add column duty_cost_currency text,
      add constraint inbound_shipment_status_check check (status in ('PENDING', 'IN_TRANSIT', 'PARTIALLY_RECEIVED', 'RECEIVED'))`);
    this.addSql('create index inbound_shipment_status_index on inventory.inbound_shipment (store_id, status, updated_at desc, id desc)');
    this.addSql('create index inbound_shipment_location_index on inventory.inbound_shipment (location_id, updated_at desc, id desc)');
    this.addSql('create index inbound_shipment_created_index on inventory.inbound_shipment (store_id, created_at)');

    // Shipment lines. The counts shown on a shipment are computed from these rows on
    // every read, so they can never drift from the lines.
    this.addSql(`create table inventory.inbound_shipment_item (
      id text primary key,
      shipment_id text not null references inventory.inbound_shipment(id),
      position integer not null,
      product_id text not null references inventory.product(id),
      quantity integer not null check (quantity > 0),
      received_quantity integer not null default 0 check (received_quantity >= 0),
      damaged_quantity integer not null default 0 check (damaged_quantity >= 0),
      missing_quantity integer not null default 0 check (missing_quantity >= 0),
      check (received_quantity + damaged_quantity + missing_quantity <= quantity),
      unique (shipment_id, position),
      unique (shipment_id, product_id)
    )`);

    // Restock of completed returns: one row per return item, written in the same
    // transaction as the stock it added. The primary key makes the restock happen once
    // whatever the number of deliveries of the event or completions of the return.
    this.addSql(`create table inventory.restock_ledger (
      return_item_id text primary key,
      store_id text not null,
      return_id text not null,
      event_id text not null,
      inventory_item_id text references inventory.inventory_item(id),
      location_id text references inventory.location(id),
      quantity integer not null,
      created_at timestamptz not null default now()
    )`);
    this.addSql('create index restock_ledger_return_index on inventory.restock_ledger (return_id)');
  }
}
