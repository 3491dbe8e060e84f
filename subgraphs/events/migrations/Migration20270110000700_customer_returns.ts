import { Migration } from '@mikro-orm/migrations';

/**
 * The returns and orders of the store's customers as the events subgraph knows them, for the
 * segments' return conditions (`returns`, `returnRate`): one row per return and per order, kept
 * from the returns subgraph's outbox events (return.created / .updated, order.created / .updated /
 * .deleted) by the `customer-returns` consumer, never read from that subgraph's tables. Rows are
 * matched to customers as the returns subgraph matches them: by the order's email (lower case) or
 * phone number; the partial indexes serve the per-customer lookups of a segment.
 */
export class Migration20270110000700_customer_returns extends Migration {
  override name = 'Migration20270110000700_customer_returns';

  override up(): void {
    this.addSql(`create table events.customer_return (
      return_id text primary key,
      store_id text not null,
      email text,
      phone text,
      status text not null,
      reasons text[] not null,
      units integer not null,
      created_at timestamptz not null,
      sequence bigint not null default 0
    )`);
    this.addSql('create index customer_return_email_index on events.customer_return (store_id, email, created_at) include (status, units) where email is not null');
    this.addSql('create index customer_return_phone_index on events.customer_return (store_id, phone, created_at) include (status, units) where phone is not null');
    this.addSql(`create table events.customer_order (
      order_id text primary key,
      store_id text not null,
      email text,
      phone text,
      units integer not null,
      created_at timestamptz not null,
      sequence bigint not null default 0
    )`);
    this.addSql('create index customer_order_email_index on events.customer_order (store_id, email) include (units) where email is not null');
    this.addSql('create index customer_order_phone_index on events.customer_order (store_id, phone) include (units) where phone is not null');
  }

  override down(): void {
    this.addSql('drop table if exists events.customer_return');
    this.addSql('drop table if exists events.customer_order');
  }
}
