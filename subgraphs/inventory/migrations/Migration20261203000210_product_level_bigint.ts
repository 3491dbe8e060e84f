import { Migration } from '@mikro-orm/migrations';

/**
 * A product's level sums several items (kinds, lots), each of which may hold
 * up to 2,147,483,647 units: the sum needs more than an integer.
 */
export class Migration20261203000210_product_level_bigint extends Migration {
  override name = 'Migration20261203000210_product_level_bigint';

  override up(): void {
    this.addSql('alter table inventory.product_level alter column quantity type bigint');
  }
}
