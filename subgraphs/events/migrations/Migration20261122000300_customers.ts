import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000300_customers extends Migration {
  override name = 'Migration20261122000300_customers';

  override up(): void {
    this.addSql(`create table events.customer (
      id text primary key,
      store_id text not null,
      email text,
      phone_number text,
      first_name text,
      last_name text,
      location jsonb,
      custom_fields jsonb,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`);
    // Identity resolution looks customers up by email (case-insensitive) and phone; both are unique per store.
    this.addSql('create unique index customer_store_email_unique on events.customer (store_id, lower(email)) where email is not null');
    this.addSql('create unique index customer_store_phone_unique on events.customer (store_id, phone_number) where phone_number is not null');
    this.addSql('create index customer_store_created_index on events.customer (store_id, created_at desc, id desc)');
  }
}
