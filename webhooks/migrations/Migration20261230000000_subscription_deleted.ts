import { Migration } from '@mikro-orm/migrations';

/**
 * A deleted subscription is marked (`deleted_at`) and answers as gone at once; its rows are purged
 * by the sweep in the background. Deleting it in the request locked its lanes, messages and log
 * (the cascade) while deliverers and the fan-out held them: the two could deadlock under load.
 */
export class Migration20261230000000_subscription_deleted extends Migration {
  override name = 'Migration20261230000000_subscription_deleted';

  override up(): void {
    this.addSql('alter table webhooks.subscription add column deleted_at timestamptz');
    this.addSql('create index subscription_deleted_index on webhooks.subscription (deleted_at) where deleted_at is not null');
  }
}
