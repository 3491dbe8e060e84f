import { Migration } from '@mikro-orm/migrations';

/**
 * Storefront events (docs/events.md#storefront-events): which identifiers a storefront visitor has
 * shown (an anonymous id or the storefront's customer id, seen beside an email or a phone), so a
 * later event that carries only the visitor's id lands on the same customer; and the events of a
 * visitor not identified yet, held until they are (then accepted like any custom event) or expire.
 */
export class Migration20261229000500_storefront_identity extends Migration {
  override name = 'Migration20261229000500_storefront_identity';

  override up(): void {
    this.addSql(`create table events.storefront_identity (
      store_id text not null,
      kind text not null check (kind in ('anonymous', 'storefront_customer')),
      value text not null,
      email text,
      phone_number text,
      updated_at timestamptz not null default now(),
      primary key (store_id, kind, value)
    )`);
    // Erasures find a person's identities by their email and phone.
    this.addSql('create index storefront_identity_email_index on events.storefront_identity (store_id, lower(email)) where email is not null');
    this.addSql('create index storefront_identity_phone_index on events.storefront_identity (store_id, phone_number) where phone_number is not null');
    this.addSql(`create table events.storefront_pending_event (
      id text primary key,
      store_id text not null,
      kind text not null,
      value text not null,
      event jsonb not null,
      received_at timestamptz not null default now()
    )`);
    this.addSql('create index storefront_pending_visitor_index on events.storefront_pending_event (store_id, kind, value, received_at, id)');
    this.addSql('create index storefront_pending_received_index on events.storefront_pending_event (store_id, received_at)');
  }
}
