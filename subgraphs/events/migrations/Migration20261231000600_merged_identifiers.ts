import { Migration } from '@mikro-orm/migrations';

/**
 * The email and phone number each merged profile had (docs/consent.md#merging-profiles): orders and
 * returns placed under them stay the survivor's (`Customer.returns` matches them too). Erased with
 * the person, like the rest of `customer_merge`.
 */
export class Migration20261231000600_merged_identifiers extends Migration {
  override name = 'Migration20261231000600_merged_identifiers';

  override up(): void {
    this.addSql('alter table events.customer_merge add column email text, add column phone_number text');
  }
}
