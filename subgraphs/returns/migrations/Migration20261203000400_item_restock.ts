import { Migration } from '@mikro-orm/migrations';

/**
 * Whether completing the return puts an item back in stock: processing may
 * say not to (`processInput.restock: false`, or a rejected item, which goes
 * back to the customer). Restock reads it from the return's events.
 */
export class Migration20261203000400_item_restock extends Migration {
  override name = 'Migration20261203000400_item_restock';

  override up(): void {
    this.addSql('alter table returns.return_item add column restock boolean not null default true');
  }
}
