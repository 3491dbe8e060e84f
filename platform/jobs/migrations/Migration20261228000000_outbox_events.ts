import { Migration } from '@mikro-orm/migrations';

/**
 * The outbox as a table (platform/jobs/outbox.ts): one row per published event, read by every consumer
 * from its own position (`outbox_consumer`), instead of one pg-boss job per consumer and event.
 *
 * `tx` is the publishing transaction: a consumer reads the rows of the transactions that committed
 * between two snapshots of the database (its position and the next), which is the commit order, so a
 * row committed late is never skipped. The index on `tx` finds a window's rows; the primary key pages
 * through a large window in sequence order, and retention deletes what every consumer has passed.
 */
export class Migration20261228000000_outbox_events extends Migration {
  override name = 'Migration20261228000000_outbox_events';

  override up(): void {
    this.addSql(`create table platform.outbox_event (
      sequence bigint primary key,
      tx xid8 not null default pg_current_xact_id(),
      id text not null,
      type text not null,
      version int not null,
      store_id text not null,
      subject_type text not null,
      subject_id text not null,
      occurred_at timestamptz not null,
      data json not null
    ) with (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 20000, autovacuum_vacuum_cost_delay = 0)`);
    this.addSql('create index outbox_event_tx_index on platform.outbox_event (tx)');
    // A consumer's position: every event of a transaction visible in `snapshot` is consumed; while a
    // large window is read in parts, also the events visible in `target` up to sequence `after`
    // (`ceiling`: the sequence's value when `target` was taken, which bounds the window's numbers).
    this.addSql(`create table platform.outbox_consumer (
      name text primary key,
      snapshot pg_snapshot not null,
      target pg_snapshot,
      after bigint,
      ceiling bigint,
      updated_at timestamptz not null default now()
    )`);
  }
}
