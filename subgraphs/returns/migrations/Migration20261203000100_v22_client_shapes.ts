import { Migration } from '@mikro-orm/migrations';

/**
 * What clients of the real platform's API 2.2 send and read that the service
 * had no place for: an item's processing outcome (null until the return is
 * processed), exchanges for the same variant (`same_item_replacement`), and
 * comments that carry an image (base64) instead of a message.
 */
export class Migration20261203000100_v22_client_shapes extends Migration {
  override name = 'Migration20261203000100_v22_client_shapes';

  override up(): void {
    this.addSql('alter table returns.return_item add column outcome text');
    this.addSql('alter table returns.return_item add column same_item_replacement boolean not null default false');
    this.addSql('alter table returns.return_comment add column image text');
  }
}
