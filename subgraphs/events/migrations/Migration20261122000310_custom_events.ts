import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000310_custom_events extends Migration {
  override name = 'Migration20261122000310_custom_events';

  override up(): void {
    // Custom field values that are ISO 8601 dates, as epoch seconds: segments compare them as dates
    // without re-parsing strings (and without a cast that could fail on a non-date value).
    this.addSql('alter table events.customer add column custom_field_dates jsonb');
    this.addSql('create index customer_custom_fields_gin on events.customer using gin (custom_fields jsonb_path_ops)');

    // One row per processed event. The id is chosen at ingestion and travels in the job, so a job
    // retried after its transaction committed finds its event and does nothing (exactly-once effect).
    this.addSql(`create table events.custom_event (
      id text primary key,
      store_id text not null,
      customer_id text not null references events.customer (id),
      event_name text not null,
      event_timestamp timestamptz not null,
      value numeric,
      value_currency text,
      unique_id text,
      data jsonb not null default '{}',
      data_dates jsonb not null default '{}',
      extra jsonb,
      received_at timestamptz not null,
      created_at timestamptz not null default now()
    )`);
    // Segments: "customers who performed E (between T1 and T2)" scans one (store, event) range.
    this.addSql('create index custom_event_segment_index on events.custom_event (store_id, event_name, event_timestamp, customer_id)');
    // A customer's history, newest first (keyset pagination).
    this.addSql('create index custom_event_customer_index on events.custom_event (customer_id, event_timestamp desc, id desc)');
    // Events by name and time range across the store, newest first.
    this.addSql('create index custom_event_store_time_index on events.custom_event (store_id, event_timestamp desc, id desc)');
    // Property equality conditions (`data @> {"k": v}`).
    this.addSql('create index custom_event_data_gin on events.custom_event using gin (data jsonb_path_ops)');

    // uniqueId deduplication: the primary key decides, so concurrent duplicates cannot both win.
    this.addSql(`create table events.custom_event_unique_id (
      store_id text not null,
      unique_id text not null,
      event_id text not null,
      created_at timestamptz not null default now(),
      primary key (store_id, unique_id)
    )`);

    // The property catalogue: every (event name, key, type) seen in a store.
    this.addSql(`create table events.event_property (
      store_id text not null,
      event_name text not null,
      key text not null,
      type text not null,
      first_seen_at timestamptz not null default now(),
      primary key (store_id, event_name, key, type)
    )`);

    // Saved segments.
    this.addSql(`create table events.segment (
      id text primary key,
      store_id text not null,
      name text not null,
      definition jsonb not null,
      created_at timestamptz not null default now()
    )`);
    this.addSql('create index segment_store_index on events.segment (store_id, created_at desc, id desc)');

    // Per-store request counters of event creation, one row per (store, second). Shared by every
    // facade process, so the limit holds however many run.
    this.addSql(`create table events.event_rate_window (
      store_id text not null,
      window_start bigint not null,
      count integer not null,
      primary key (store_id, window_start)
    )`);
  }
}
