import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000100_returns extends Migration {
  override name = 'Migration20261122000100_returns';

  override up(): void {
    this.addSql(`create table returns."order" (
      id text primary key,
      store_id text not null,
      provider text not null,
      external_id text not null,
      name text not null,
      currency text not null,
      customer_email text,
      customer_phone text,
      customer_first_name text,
      customer_last_name text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (store_id, provider, external_id)
    )`);
    // Customer.returns matches orders by the customer's email (case-insensitive) or phone.
    this.addSql('create index order_customer_email_index on returns."order" (store_id, lower(customer_email))');
    this.addSql('create index order_customer_phone_index on returns."order" (store_id, customer_phone)');
    this.addSql(`create table returns.return (
      id text primary key,
      store_id text not null,
      order_id text not null references returns."order"(id),
      status text not null,
      type text not null default 'return',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`);
    // The list's keyset: newest update first, id as the tie-breaker.
    this.addSql('create index return_store_updated_index on returns.return (store_id, updated_at desc, id desc)');
    this.addSql('create index return_order_index on returns.return (order_id)');
  }
}
