import { Migration } from '@mikro-orm/migrations';

/**
 * Idempotency keys are now recorded in the transaction that creates their
 * return (platform/api/idempotency.ts), so a key always has its result: claims
 * without one (requests that died) are dropped.
 */
export class Migration20261124000100_idempotency_claims extends Migration {
  override name = 'Migration20261124000100_idempotency_claims';

  override up(): void {
    this.addSql('delete from returns.idempotency_key where return_id is null');
    this.addSql('alter table returns.idempotency_key rename column return_id to result_id');
    this.addSql('alter table returns.idempotency_key alter column result_id set not null');
  }
}
