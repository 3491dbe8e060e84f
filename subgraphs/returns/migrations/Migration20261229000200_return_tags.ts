import { Migration } from '@mikro-orm/migrations';

/**
 * Return tags (the real platform's return tags): each store's tags, and which returns carry them.
 * A return names its tags by the tag's id, so renaming a tag rewrites one row; filtering returns by
 * a tag reads the tag's links.
 */
export class Migration20261229000200_return_tags extends Migration {
  override name = 'Migration20261229000200_return_tags';

  override up(): void {
    this.addSql(`create table returns.return_tag (
      id text primary key,
      store_id text not null,
      name text not null,
      pill_theme text not null,
      source text not null default 'merchant',
      numeric_id bigint generated always as identity,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (store_id, name)
    )`);
    this.addSql(`create table returns.return_tag_link (
      return_id text not null references returns.return(id),
      tag_id text not null references returns.return_tag(id),
      created_at timestamptz not null default now(),
      primary key (return_id, tag_id)
    )`);
    this.addSql('create index return_tag_link_tag_index on returns.return_tag_link (tag_id, return_id)');
  }
}
