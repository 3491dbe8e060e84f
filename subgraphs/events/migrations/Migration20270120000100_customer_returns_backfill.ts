import { Migration } from '@mikro-orm/migrations';

/**
 * Where the backfill of the segments' copy of returns and orders stands (segments/
 * customer-returns-backfill.job.ts): one row, the last subject copied (store, kind, id) and when
 * it finished. The copy itself is not done here: the returns and orders are the returns
 * subgraph's, read through its `subjects` pages (the webhook backfills' reads), never its tables,
 * and a store with millions of orders is copied in many short transactions, each holding the
 * `customer-returns` consumer's position (which a migration's one transaction could not do).
 */
export class Migration20270120000100_customer_returns_backfill extends Migration {
  override name = 'Migration20270120000100_customer_returns_backfill';

  override up(): void {
    this.addSql(`create table events.customer_returns_backfill (
      id boolean primary key default true check (id),
      store_id text,
      kind text,
      after_id text,
      finished_at timestamptz
    )`);
    this.addSql('insert into events.customer_returns_backfill default values');
  }

  override down(): void {
    this.addSql('drop table if exists events.customer_returns_backfill');
  }
}
