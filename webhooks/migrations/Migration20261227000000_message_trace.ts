import { Migration } from '@mikro-orm/migrations';

/** The trace a message's event belongs to (W3C trace context, when tracing is on): its deliveries continue it. */
export class Migration20261227000000_message_trace extends Migration {
  override name = 'Migration20261227000000_message_trace';

  override up(): void {
    this.addSql('alter table webhooks.message add column trace jsonb');
  }
}
