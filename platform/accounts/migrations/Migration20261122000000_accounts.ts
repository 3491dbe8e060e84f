import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000000_accounts extends Migration {
  override name = 'Migration20261122000000_accounts';

  override up(): void {
    this.addSql(`create table platform.account (
      id text primary key,
      name text not null,
      created_at timestamptz not null default now()
    )`);
    this.addSql(`create table platform.store (
      id text primary key,
      account_id text not null references platform.account(id),
      name text not null,
      created_at timestamptz not null default now()
    )`);
    this.addSql('create index store_account_id_index on platform.store (account_id)');
    // Secrets are looked up by hash on every request: the unique index is that lookup.
    this.addSql(`create table platform.api_secret (
      id text primary key,
      account_id text not null references platform.account(id),
      prefix text not null,
      hash text not null unique,
      scopes text[] not null,
      created_at timestamptz not null default now(),
      revoked_at timestamptz
    )`);
    this.addSql('create index api_secret_account_id_index on platform.api_secret (account_id)');
    this.addSql(`create table platform.compat_key (
      id text primary key,
      store_id text not null references platform.store(id),
      prefix text not null,
      hash text not null unique,
      created_at timestamptz not null default now(),
      revoked_at timestamptz
    )`);
    this.addSql('create index compat_key_store_id_index on platform.compat_key (store_id)');
    this.addSql('create table platform.setting (key text primary key, value text not null)');
  }
}
