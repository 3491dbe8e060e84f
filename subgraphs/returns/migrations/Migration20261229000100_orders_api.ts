import { Migration } from '@mikro-orm/migrations';

/**
 * The real platform's orders API (docs/returns.md#the-orders-api): what its order body carries
 * beyond the service's order (the customer's own id and full name, the shipping method, the
 * billing address, tags, the order's stated totals, line images), and fulfillments with their
 * tracking history. Orders are found by their service id, their external id or their name, each
 * through an index of its own.
 */
export class Migration20261229000100_orders_api extends Migration {
  override name = 'Migration20261229000100_orders_api';

  override up(): void {
    this.addSql(`alter table returns."order"
      add column customer_external_id text,
      add column customer_name text,
      add column shipping_method text,
      add column billing_address jsonb,
      add column tags text[],
      add column total_price numeric(20, 6),
      add column subtotal_price numeric(20, 6),
      add column total_tax numeric(20, 6),
      add column total_discount numeric(20, 6)`);
    // A line's discount as stated, when the order's own discount is spread over the lines (its `discount`).
    this.addSql('alter table returns.order_line_item add column image_url text, add column stated_discount numeric(20, 6)');
    this.addSql('create index order_store_external_index on returns."order" (store_id, external_id)');
    this.addSql('create index order_store_name_index on returns."order" (store_id, name)');

    // `external_id` is the id clients name the fulfillment by: theirs (`fulfillmentId`), else the service's own id.
    this.addSql(`create table returns.fulfillment (
      id text primary key,
      store_id text not null,
      order_id text not null references returns."order"(id),
      external_id text not null,
      status text not null,
      tracking_company text,
      tracking_number text,
      estimated_delivery_date date,
      delivered_at timestamptz,
      -- The time of the tracking entry that set the status: an older entry arriving late does not move it back.
      status_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (order_id, external_id)
    )`);
    this.addSql('create index fulfillment_store_index on returns.fulfillment (store_id, created_at)');

    this.addSql(`create table returns.fulfillment_line (
      fulfillment_id text not null references returns.fulfillment(id),
      order_line_item_id text not null references returns.order_line_item(id),
      position integer not null,
      quantity integer not null check (quantity >= 1),
      primary key (fulfillment_id, order_line_item_id)
    )`);
    // What is fulfilled of a line (returnable units, a return item's fulfilment).
    this.addSql('create index fulfillment_line_line_index on returns.fulfillment_line (order_line_item_id)');

    this.addSql(`create table returns.fulfillment_event (
      id text primary key,
      fulfillment_id text not null references returns.fulfillment(id),
      status text not null,
      message text not null,
      at timestamptz not null,
      location jsonb,
      recorded_at timestamptz not null default now()
    )`);
    this.addSql('create index fulfillment_event_fulfillment_index on returns.fulfillment_event (fulfillment_id, at, id)');
  }
}
