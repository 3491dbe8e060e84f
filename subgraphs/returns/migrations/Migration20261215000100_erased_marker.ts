import { Migration } from '@mikro-orm/migrations';

/**
 * Orders and returns of an erased customer stay (they are financial records) without the person:
 * `erased_at` marks them (docs/privacy.md).
 */
export class Migration20261215000100_erased_marker extends Migration {
  override name = 'Migration20261215000100_erased_marker';

  override up(): void {
    this.addSql('alter table returns."order" add column erased_at timestamptz');
    this.addSql('alter table returns.return add column erased_at timestamptz');
  }
}
