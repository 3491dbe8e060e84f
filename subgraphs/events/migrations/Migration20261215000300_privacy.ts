import { Migration } from '@mikro-orm/migrations';

/**
 * Customer erasure and retention (docs/privacy.md): the suppressed identifiers of erased customers
 * (keyed hashes, nothing readable), and the indexes the retention job deletes by age through.
 */
export class Migration20261215000300_privacy extends Migration {
  override name = 'Migration20261215000300_privacy';

  override up(): void {
    this.addSql(`create table events.customer_suppression (
      store_id text not null,
      hash text not null,
      erasure_id text not null,
      mode text not null check (mode in ('DROP', 'REFUSE')),
      created_at timestamptz not null default now(),
      primary key (store_id, hash)
    )`);
    this.addSql('create index message_created_index on events.message (created_at)');
    this.addSql('create index flow_run_finished_index on events.flow_run (finished_at) where finished_at is not null');
  }
}
