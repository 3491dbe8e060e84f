import { Migration } from '@mikro-orm/migrations';

/** A store's IANA time zone: where its analytics buckets start when a query names none (null: UTC). */
export class Migration20261220000000_store_time_zone extends Migration {
  override name = 'Migration20261220000000_store_time_zone';

  override up(): void {
    this.addSql('alter table platform.store add column time_zone text');
  }
}
