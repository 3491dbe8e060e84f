import { Migration } from '@mikro-orm/migrations';

/**
 * The outbox's commit-order sequence (platform/jobs/outbox.ts). A change takes its subject's row lock
 * before it publishes, so a later change of the same subject draws its number after the earlier
 * one committed: per subject, these numbers are the commit order (a job's `created_on`, the start
 * of its transaction, is not).
 */
export class Migration20261210000000_outbox_sequence extends Migration {
  override name = 'Migration20261210000000_outbox_sequence';

  override up(): void {
    this.addSql('create sequence platform.outbox_sequence as bigint cache 1');
  }
}
