import { Migration } from '@mikro-orm/migrations';

/**
 * Numeric ids for order lines and comments (orders and returns have had theirs
 * since the domain migration): allocated once by an identity, never reused,
 * for integrations that identify records by number. Indexes for the lookups
 * by those numbers and for lists windowed on the creation time; a timeline of
 * what was done to a return and by what request.
 */
export class Migration20261201000100_return_numbers_and_windows extends Migration {
  override name = 'Migration20261201000100_return_numbers_and_windows';

  override up(): void {
    this.addSql('alter table returns.order_line_item add column compat_id bigint generated always as identity');
    this.addSql('create unique index order_line_item_compat_id_unique on returns.order_line_item (compat_id)');
    this.addSql('alter table returns.return_comment add column compat_id bigint generated always as identity');
    this.addSql('create unique index return_comment_compat_id_unique on returns.return_comment (compat_id)');
    // Windows on the creation time walk (created_at desc, id desc) inside the store; the old
    // (store_id, created_at) index served only range filters and is replaced.
    this.addSql('create index return_store_created_id_index on returns.return (store_id, created_at desc, id desc)');
    this.addSql('drop index returns.return_store_created_index');

    this.addSql(`create table returns.return_timeline (
      id text primary key,
      return_id text not null references returns.return(id),
      kind text not null,
      detail jsonb,
      created_at timestamptz not null default now()
    )`);
    this.addSql('create index return_timeline_return_index on returns.return_timeline (return_id, created_at, id)');
  }
}
