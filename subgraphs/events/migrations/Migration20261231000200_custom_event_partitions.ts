import { Migration } from '@mikro-orm/migrations';

/**
 * Custom events partitioned by the month the service received them (`received_at`), natively: a
 * store keeps years of events, and retention then drops whole months instead of deleting rows one
 * by one, while new events only ever touch the newest partition's indexes. The existing rows move
 * into the partitions in this migration (one copy; the rollup is untouched: its triggers are made
 * after the copy).
 *
 * The primary key includes the partition key, as PostgreSQL requires: `(id, received_at)`. An
 * event's id is made once at acceptance and its `received_at` with it, so ids stay unique, and the
 * exactly-once re-check (`id = any(...)`) reads each partition's key. uniqueIds keep their own
 * table, whose primary key decides between duplicates as before. A flow run's `event_id` can no
 * longer be a foreign key (a partitioned table's unique keys include the partition key): runs and
 * their events are removed together by the code that removes events (erasure, retention).
 *
 * `ensure_custom_event_partitions(months_ahead)` creates the months from the current one to
 * `months_ahead` ahead that are missing; the subgraph's workers run it at start and every day.
 */
export class Migration20261231000200_custom_event_partitions extends Migration {
  override name = 'Migration20261231000200_custom_event_partitions';

  override up(): void {
    this.addSql(`do $$ declare c text; begin
      select conname into c from pg_constraint where conrelid = 'events.flow_run'::regclass and contype = 'f' and confrelid = 'events.custom_event'::regclass;
      if c is not null then execute format('alter table events.flow_run drop constraint %I', c); end if;
    end $$`);
    this.addSql('drop trigger custom_event_stat_insert on events.custom_event');
    this.addSql('drop trigger custom_event_stat_update on events.custom_event');
    this.addSql('drop trigger custom_event_stat_delete on events.custom_event');
    this.addSql('alter table events.custom_event rename to custom_event_unpartitioned');
    for (const index of ['custom_event_pkey', 'custom_event_segment_index', 'custom_event_customer_index', 'custom_event_store_time_index', 'custom_event_data_gin']) {
      this.addSql(`alter index events.${index} rename to ${index}_unpartitioned`);
    }

    this.addSql(`create table events.custom_event (
      id text not null,
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
      created_at timestamptz not null default now(),
      primary key (id, received_at)
    ) partition by range (received_at)`);
    // The same indexes as before, made on every partition.
    this.addSql('create index custom_event_segment_index on events.custom_event (store_id, event_name, event_timestamp, customer_id)');
    this.addSql('create index custom_event_customer_index on events.custom_event (customer_id, event_timestamp desc, id desc)');
    this.addSql('create index custom_event_store_time_index on events.custom_event (store_id, event_timestamp desc, id desc)');
    this.addSql('create index custom_event_data_gin on events.custom_event using gin (data jsonb_path_ops)');
    // Retention: a store's events by the time they were received, inside a partition.
    this.addSql('create index custom_event_store_received_index on events.custom_event (store_id, received_at)');

    // Monthly partitions, named custom_event_yYYYYmMM, made and attached (attaching locks less than creating in place).
    this.addSql(`create function events.ensure_custom_event_partition(month timestamptz) returns boolean language plpgsql as $$
      declare
        lo timestamptz := date_trunc('month', month at time zone 'UTC') at time zone 'UTC';
        hi timestamptz := lo + interval '1 month';
        part text := 'custom_event_y' || to_char(lo at time zone 'UTC', 'YYYY"m"MM');
      begin
        if exists (select 1 from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'events' and c.relname = part) then
          return false;
        end if;
        execute format('create table events.%I (like events.custom_event including defaults including constraints)', part);
        execute format('alter table events.custom_event attach partition events.%I for values from (%L) to (%L)', part, lo, hi);
        return true;
      end $$`);
    this.addSql(`create function events.ensure_custom_event_partitions(months_ahead int) returns int language plpgsql as $$
      declare made int := 0;
      begin
        for i in 0..months_ahead loop
          if events.ensure_custom_event_partition(now() + make_interval(months => i)) then made := made + 1; end if;
        end loop;
        return made;
      end $$`);
    // Every month the existing rows were received in, then the current one and three ahead.
    this.addSql(`do $$ declare m timestamptz; begin
      for m in select distinct date_trunc('month', received_at at time zone 'UTC') at time zone 'UTC' from events.custom_event_unpartitioned loop
        perform events.ensure_custom_event_partition(m);
      end loop;
      perform events.ensure_custom_event_partitions(3);
    end $$`);
    this.addSql('insert into events.custom_event select * from events.custom_event_unpartitioned');
    this.addSql('drop table events.custom_event_unpartitioned');

    // The rollup's statement triggers, on the partitioned table (their transition tables hold the rows of every partition).
    this.addSql(
      'create trigger custom_event_stat_insert after insert on events.custom_event referencing new table as new_rows for each statement execute function events.event_stat_on_insert()',
    );
    this.addSql(
      'create trigger custom_event_stat_update after update on events.custom_event referencing old table as old_rows new table as new_rows for each statement execute function events.event_stat_on_update()',
    );
    this.addSql(
      'create trigger custom_event_stat_delete after delete on events.custom_event referencing old table as old_rows for each statement execute function events.event_stat_on_delete()',
    );
    // A run's event: what erasure and retention delete runs by.
    this.addSql('create index if not exists flow_run_event_index on events.flow_run (event_id)');
  }
}
