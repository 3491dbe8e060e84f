import { Migration } from '@mikro-orm/migrations';

/**
 * A second rollup behind `eventStats`, per store-local day: events per (store, event name, local
 * date, customer). A dashboard's daily, weekly or monthly series counts distinct customers per
 * day, and the hourly rollup gives a customer a row for every hour they were active; per day they
 * have one, a few times fewer rows to read for the same exact answer.
 *
 * A store's days are counted in one zone, pinned in `event_stat_day_zone` (the store's zone when
 * the day rollup was built; `ready` once built): the triggers keep the rows of pinned stores only,
 * reading the pin `for share`, so a rebuild (which locks the pin `for update`, deletes the store's
 * days and counts them again from its events in the new zone) never interleaves with them. Reads
 * use the day rows only for a window in the pinned zone (event-stats.rows.ts); otherwise the hourly
 * rollup answers, as before.
 */
export class Migration20261231000300_event_stat_days extends Migration {
  override name = 'Migration20261231000300_event_stat_days';

  override up(): void {
    this.addSql(`create table events.event_stat_day (
      store_id text not null,
      event_name text not null,
      day date not null,
      customer_id text not null,
      events integer not null,
      primary key (store_id, event_name, day, customer_id) include (events)
    )`);
    this.addSql(`create table events.event_stat_day_zone (
      store_id text primary key,
      time_zone text not null,
      ready boolean not null default false
    )`);

    const day = (table: string, n: number) =>
      `select r.store_id, r.event_name, (r.event_timestamp at time zone z.time_zone)::date as day, r.customer_id, ${n} as n from ${table} r join events.event_stat_day_zone z on z.store_id = r.store_id`;
    const lockPins = (table: string) => `perform 1 from events.event_stat_day_zone where store_id in (select distinct store_id from ${table}) order by store_id for share`;
    const addDays = (rows: string) => `insert into events.event_stat_day (store_id, event_name, day, customer_id, events)
      select store_id, event_name, day, customer_id, sum(n) from (${rows}) c group by 1, 2, 3, 4 having sum(n) <> 0 order by 1, 2, 3, 4
      on conflict (store_id, event_name, day, customer_id) do update set events = event_stat_day.events + excluded.events`;
    const dropEmptiedDays = `delete from events.event_stat_day s using (${day('old_rows', 0)}) k
      where s.events = 0 and s.store_id = k.store_id and s.event_name = k.event_name and s.day = k.day and s.customer_id = k.customer_id`;

    // The hourly rollup's functions (Migration20261220000200_event_stats), with the day rollup beside it.
    const slot = (column: string) => `date_bin('1 hour', ${column}, timestamptz '1970-01-01 00:00:00+00')`;
    const add = (rows: string) => `insert into events.event_stat (store_id, event_name, slot, customer_id, events)
      select store_id, event_name, slot, customer_id, sum(n) from (${rows}) c group by 1, 2, 3, 4 having sum(n) <> 0 order by 1, 2, 3, 4
      on conflict (store_id, event_name, slot, customer_id) do update set events = event_stat.events + excluded.events`;
    const dropEmptied = `delete from events.event_stat s using (select distinct store_id, event_name, ${slot('event_timestamp')} as slot, customer_id from old_rows) k
      where s.events = 0 and s.store_id = k.store_id and s.event_name = k.event_name and s.slot = k.slot and s.customer_id = k.customer_id`;
    const counted = (table: string, n: number) => `select store_id, event_name, ${slot('event_timestamp')} as slot, customer_id, ${n} as n from ${table}`;
    this.addSql(`create or replace function events.event_stat_on_insert() returns trigger language plpgsql as $$
      begin
        ${add(counted('new_rows', 1))};
        ${lockPins('new_rows')};
        ${addDays(day('new_rows', 1))};
        return null;
      end $$`);
    this.addSql(`create or replace function events.event_stat_on_update() returns trigger language plpgsql as $$
      begin
        ${add(`${counted('new_rows', 1)} union all ${counted('old_rows', -1)}`)};
        ${dropEmptied};
        ${lockPins('(select store_id from new_rows union select store_id from old_rows) changed')};
        ${addDays(`${day('new_rows', 1)} union all ${day('old_rows', -1)}`)};
        ${dropEmptiedDays};
        return null;
      end $$`);
    this.addSql(`create or replace function events.event_stat_on_delete() returns trigger language plpgsql as $$
      begin
        ${add(counted('old_rows', -1))};
        ${dropEmptied};
        ${lockPins('old_rows')};
        ${addDays(day('old_rows', -1))};
        ${dropEmptiedDays};
        return null;
      end $$`);
  }
}
