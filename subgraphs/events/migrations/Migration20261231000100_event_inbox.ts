import { Migration } from '@mikro-orm/migrations';

/**
 * Accepted custom events wait in the subgraph's own inbox until processed (docs/events.md), no
 * longer as pg-boss jobs: a row per event, numbered in acceptance order, in one of 64 lanes (a
 * store's events share one). A worker claims the oldest due rows of the lanes it holds, applies them
 * and deletes them in one commit; a failed attempt pushes its row's `ready_at` back; an exhausted
 * one goes to the dead letters. Events still queued in pg-boss when this runs are moved in by the
 * subgraph's workers (custom-event.job.ts).
 */
export class Migration20261231000100_event_inbox extends Migration {
  override name = 'Migration20261231000100_event_inbox';

  override up(): void {
    this.addSql(`create table events.event_inbox (
      seq bigint generated always as identity primary key,
      event_id text not null unique,
      store_id text not null,
      lane smallint not null,
      job jsonb not null,
      attempts int not null default 0,
      ready_at timestamptz not null default now(),
      last_error text
    )`);
    // A claim: the oldest due rows of some lanes, in acceptance order.
    this.addSql('create index event_inbox_claim_index on events.event_inbox (lane, seq)');
    this.addSql('create index event_inbox_store_index on events.event_inbox (store_id)');
    // Rows come and go by the thousand a second: vacuumed after a fixed number of dead rows, at full speed.
    this.addSql('alter table events.event_inbox set (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 20000, autovacuum_vacuum_cost_delay = 0)');
  }
}
