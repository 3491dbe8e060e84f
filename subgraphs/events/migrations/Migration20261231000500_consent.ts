import { Migration } from '@mikro-orm/migrations';

/**
 * Consent and messaging as merchants must send it (docs/consent.md): each customer's consent per
 * channel and kind with its history, channel suppressions, merged profiles' ids, the stores'
 * messaging settings (quiet hours, smart sending, the inbound SMS secret), the kind of each flow
 * message, and events imported as history (`backfill`), which start no flow.
 */
export class Migration20261231000500_consent extends Migration {
  override name = 'Migration20261231000500_consent';

  override up(): void {
    // The current consent of a customer per (channel, kind); none means never subscribed.
    // `changed_at` is when the change took effect (a client's `updatedAt`): an older change never replaces a newer one.
    this.addSql(`create table events.customer_consent (
      customer_id text not null,
      store_id text not null,
      channel text not null check (channel in ('email', 'sms')),
      kind text not null check (kind in ('marketing', 'transactional')),
      status text not null check (status in ('subscribed', 'confirmed', 'unsubscribed')),
      method text not null,
      changed_at timestamptz not null,
      recorded_at timestamptz not null default clock_timestamp(),
      primary key (customer_id, channel, kind)
    )`);
    // Every change, kept: who changed it, when and how (proof of consent), newest first per customer.
    this.addSql(`create table events.consent_change (
      id text primary key,
      store_id text not null,
      customer_id text not null,
      channel text not null,
      kind text not null,
      status text not null,
      previous_status text,
      method text not null,
      actor text not null,
      address text,
      detail text,
      changed_at timestamptz not null,
      recorded_at timestamptz not null default clock_timestamp()
    )`);
    this.addSql('create index consent_change_customer_index on events.consent_change (customer_id, recorded_at desc, id desc)');
    // A channel a customer must not be sent anything on, marketing or transactional (a hard bounce, a complaint, a merchant's decision).
    this.addSql(`create table events.customer_channel_suppression (
      customer_id text not null,
      store_id text not null,
      channel text not null check (channel in ('email', 'sms')),
      reason text not null,
      created_at timestamptz not null default now(),
      primary key (customer_id, channel)
    )`);
    // Profiles merged into another: their ids keep answering as the surviving profile.
    this.addSql(`create table events.customer_merge (
      merged_id text primary key,
      store_id text not null,
      into_id text not null,
      merged_at timestamptz not null default now()
    )`);
    this.addSql('create index customer_merge_into_index on events.customer_merge (into_id)');
    this.addSql(`create table events.messaging_settings (
      store_id text primary key,
      quiet_hours_start int check (quiet_hours_start between 0 and 86399),
      quiet_hours_end int check (quiet_hours_end between 0 and 86399),
      smart_sending_hours int check (smart_sending_hours between 1 and 720),
      inbound_sms_secret_hash text,
      updated_at timestamptz not null default now(),
      check ((quiet_hours_start is null) = (quiet_hours_end is null))
    )`);
    // A constant default: a change of the catalogue only, whatever the number of events (every partition follows).
    this.addSql('alter table events.custom_event add column backfill boolean not null default false');
    // Re-entry rules look up a customer's runs of a flow.
    this.addSql('create index flow_run_reentry_index on events.flow_run (flow_id, customer_id, started_at desc)');
    this.addSql(`alter table events.message add column kind text not null default 'marketing' check (kind in ('marketing', 'transactional'))`);
  }
}
