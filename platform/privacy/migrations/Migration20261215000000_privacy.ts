import { Migration } from '@mikro-orm/migrations';

/**
 * Customer data on request (docs/privacy.md): erasure requests with the ledger of their steps and
 * counts, and each store's retention setting. In the platform schema because every part of the
 * service takes part in an erasure and reads the retention setting.
 */
export class Migration20261215000000_privacy extends Migration {
  override name = 'Migration20261215000000_privacy';

  override up(): void {
    this.addSql(`create table platform.erasure_request (
      id text primary key,
      store_id text not null,
      -- Which identifier the request named, never its value.
      requested_by text not null check (requested_by in ('customerId', 'email', 'phoneNumber')),
      suppression text not null check (suppression in ('DROP', 'REFUSE')),
      status text not null check (status in ('PENDING', 'RUNNING', 'COMPLETED', 'FAILED')),
      -- The identifiers and details gathered while it runs (a crash resumes with them), sealed with
      -- the secret box; cleared when it completes.
      subject_sealed text,
      -- The service ids of the erased profiles: what subscribers who mirror customers need to propagate it.
      customer_ids text[] not null default '{}',
      requested_at timestamptz not null default now(),
      started_at timestamptz,
      completed_at timestamptz
    )`);
    this.addSql('create index erasure_request_store_index on platform.erasure_request (store_id, requested_at desc, id desc)');
    // One row per part that finished its step: a resumed erasure skips them.
    this.addSql(`create table platform.erasure_step (
      erasure_id text not null references platform.erasure_request (id),
      part text not null,
      finished_at timestamptz not null default now(),
      primary key (erasure_id, part)
    )`);
    // Counted in the transactions that did the work, so they are exact across crashes.
    this.addSql(`create table platform.erasure_count (
      erasure_id text not null references platform.erasure_request (id),
      kind text not null,
      action text not null,
      count bigint not null,
      primary key (erasure_id, kind, action)
    )`);
    // A store's retention (days; null: kept until erased). A store without a row has the defaults.
    this.addSql(`create table platform.retention_setting (
      store_id text primary key,
      custom_event_days integer,
      message_days integer,
      flow_run_days integer,
      webhook_log_days integer,
      updated_at timestamptz not null default now()
    )`);
  }
}
