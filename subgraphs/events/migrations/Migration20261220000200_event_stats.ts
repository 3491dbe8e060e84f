import { Migration } from '@mikro-orm/migrations';

/**
 * The rollup behind `eventStats` (docs/analytics.md): events per store, event name, UTC hour of
 * `event_timestamp` and customer. Keyed by customer, so a bucket's distinct customers are counted
 * from it exactly (a count of distinct customers cannot be summed across hours), and two
 * transactions never touch one row unless they share the customer, which event processing
 * already orders (its customer locks). Kept by a statement trigger in the transaction that
 * stores, changes or deletes events, whatever code path does it.
 *
 * Also the indexes of the flows' dashboard reads (`flowStats`): runs by store and start, by
 * store and end.
 */
export class Migration20261220000200_event_stats extends Migration {
  override name = 'Migration20261220000200_event_stats';

  override up(): void {
    // `include (events)`: reads are index-only scans of this key.
    this.addSql(`create table events.event_stat (
      store_id text not null,
      event_name text not null,
      slot timestamptz not null,
      customer_id text not null,
      events integer not null,
      primary key (store_id, event_name, slot, customer_id) include (events)
    )`);

    const slot = (column: string) => `date_bin('1 hour', ${column}, timestamptz '1970-01-01 00:00:00+00')`;
    const add = (rows: string) => `insert into events.event_stat (store_id, event_name, slot, customer_id, events)
      select store_id, event_name, slot, customer_id, sum(n) from (${rows}) c group by 1, 2, 3, 4 having sum(n) <> 0 order by 1, 2, 3, 4
      on conflict (store_id, event_name, slot, customer_id) do update set events = event_stat.events + excluded.events`;
    // A second statement: a row changed by a statement cannot be deleted by the same one.
    const dropEmptied = `delete from events.event_stat s using (select distinct store_id, event_name, ${slot('event_timestamp')} as slot, customer_id from old_rows) k
      where s.events = 0 and s.store_id = k.store_id and s.event_name = k.event_name and s.slot = k.slot and s.customer_id = k.customer_id`;
    const counted = (table: string, n: number) => `select store_id, event_name, ${slot('event_timestamp')} as slot, customer_id, ${n} as n from ${table}`;
    this.addSql(`create function events.event_stat_on_insert() returns trigger language plpgsql as $$
      begin
        ${add(counted('new_rows', 1))};
        return null;
      end $$`);
    this.addSql(`create function events.event_stat_on_update() returns trigger language plpgsql as $$
      begin
        ${add(`${counted('new_rows', 1)} union all ${counted('old_rows', -1)}`)};
        ${dropEmptied};
        return null;
      end $$`);
    this.addSql(`create function events.event_stat_on_delete() returns trigger language plpgsql as $$
      begin
        ${add(counted('old_rows', -1))};
        ${dropEmptied};
        return null;
      end $$`);
    this.addSql(
      'create trigger custom_event_stat_insert after insert on events.custom_event referencing new table as new_rows for each statement execute function events.event_stat_on_insert()',
    );
    this.addSql(
      'create trigger custom_event_stat_update after update on events.custom_event referencing old table as old_rows new table as new_rows for each statement execute function events.event_stat_on_update()',
    );
    this.addSql(
      'create trigger custom_event_stat_delete after delete on events.custom_event referencing old table as old_rows for each statement execute function events.event_stat_on_delete()',
    );
    this.addSql(`insert into events.event_stat (store_id, event_name, slot, customer_id, events)
      select store_id, event_name, date_bin('1 hour', event_timestamp, timestamptz '1970-01-01 00:00:00+00'), customer_id, count(*)
        from events.custom_event group by 1, 2, 3, 4`);

    this.addSql('create index flow_run_store_started_index on events.flow_run (store_id, started_at)');
    this.addSql('create index flow_run_store_finished_index on events.flow_run (store_id, finished_at) where finished_at is not null');
  }
}
