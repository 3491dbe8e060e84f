import { Migration } from '@mikro-orm/migrations';

/** The account's contact: who is told by email when a webhook subscription of the account is disabled (docs/webhooks.md). */
export class Migration20270105000000_account_contact extends Migration {
  override name = 'Migration20270105000000_account_contact';

  override up(): void {
    this.addSql('alter table platform.account add column contact_email text');
  }
}
