import { Migration } from '@mikro-orm/migrations';

/** Orders with their lines, returns with items and comments, store settings, idempotency keys. */
export class Migration20261122001000_returns_domain extends Migration {
  override name = 'Migration20261122001000_returns_domain';

  override up(): void {
    // Numeric ids for the compatibility API, which identifies orders and returns by number.
    this.addSql('alter table returns."order" add column compat_id bigint generated always as identity');
    this.addSql(`alter table returns."order"
      add column shipping_cost numeric(20, 6) not null default 0,
      add column shipping_address jsonb,
      add column fulfillment_location_id text`);
    this.addSql('create unique index order_compat_id_unique on returns."order" (compat_id)');

    this.addSql(`create table returns.order_line_item (
      id text primary key,
      order_id text not null references returns."order"(id),
      external_id text not null,
      position integer not null,
      product_id text,
      variant_id text,
      sku text,
      title text,
      variant_title text,
      quantity integer not null check (quantity >= 1),
      price numeric(20, 6) not null,
      tax numeric(20, 6) not null default 0,
      discount numeric(20, 6) not null default 0,
      weight_kg numeric(12, 4),
      -- A line dropped by an order update is kept (returns may point at it) but hidden.
      removed_at timestamptz,
      unique (order_id, external_id)
    )`);

    this.addSql('alter table returns.return add column compat_id bigint generated always as identity');
    this.addSql('create unique index return_compat_id_unique on returns.return (compat_id)');
    this.addSql(`alter table returns.return
      add column provider text not null default 'custom',
      add column order_name text not null default '',
      add column currency text not null default 'USD',
      add column source jsonb not null default '{}',
      add column destination jsonb not null default '{}',
      add column notes text,
      add column compensation_methods text[] not null default '{}',
      add column shipment jsonb,
      add column shipments jsonb not null default '[]',
      add column shipment_recorded boolean not null default false,
      add column closed_at timestamptz,
      add column version integer not null default 1`);
    // List filters, each walking the (updated_at desc, id desc) keyset inside the store.
    this.addSql('create index return_store_status_updated_index on returns.return (store_id, status, updated_at desc, id desc)');
    this.addSql('create index return_store_type_updated_index on returns.return (store_id, type, updated_at desc, id desc)');
    this.addSql('create index return_store_created_index on returns.return (store_id, created_at)');
    this.addSql('create index return_store_order_name_index on returns.return (store_id, order_name)');

    this.addSql(`create table returns.return_item (
      id text primary key,
      return_id text not null references returns.return(id),
      order_line_item_id text not null references returns.order_line_item(id),
      position integer not null,
      quantity integer not null check (quantity >= 1),
      reason text not null,
      reason_code text,
      customer_comment text,
      compensation text not null,
      refund_amount numeric(20, 6) not null,
      product_value numeric(20, 6) not null,
      status text not null default 'active'
    )`);
    this.addSql('create index return_item_return_index on returns.return_item (return_id, position)');
    // Over-return checks sum the quantities already returned per order line.
    this.addSql('create index return_item_line_index on returns.return_item (order_line_item_id)');

    this.addSql(`create table returns.return_comment (
      id text primary key,
      return_id text not null references returns.return(id),
      message text not null,
      created_at timestamptz not null default now()
    )`);
    this.addSql('create index return_comment_return_index on returns.return_comment (return_id, created_at, id)');

    this.addSql(`create table returns.store_settings (
      store_id text primary key,
      return_location_id text,
      require_return_approval boolean not null default false,
      return_address jsonb,
      return_phone_number text,
      updated_at timestamptz not null default now()
    )`);

    // Idempotency-Key records: claimed in their own short transaction (so a concurrent
    // duplicate sees "in progress" instead of waiting), completed with the return.
    this.addSql(`create table returns.idempotency_key (
      store_id text not null,
      key text not null,
      request_hash text not null,
      return_id text,
      claimed_at timestamptz not null default now(),
      expires_at timestamptz not null,
      primary key (store_id, key)
    )`);
    this.addSql('create index idempotency_key_expires_index on returns.idempotency_key (expires_at)');
  }
}
