import { Migration } from '@mikro-orm/migrations';

/**
 * A return is written before its items (they reference it), in the same transaction, and the
 * items' insert refreshes the return's contribution to the rollups (Migration20261220000100_return_stats):
 * the return's own insert therefore refreshes only returns that already have items, instead of
 * computing every new return twice. Halves the rollups' work of return creation and import.
 */
export class Migration20261229000400_return_stat_insert extends Migration {
  override name = 'Migration20261229000400_return_stat_insert';

  override up(): void {
    this.addSql(`create or replace function returns.return_stat_on_return() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          perform returns.return_stat_refresh(array(select n.id from new_rows n where exists (select 1 from returns.return_item i where i.return_id = n.id)));
        elsif tg_op = 'DELETE' then
          perform returns.return_stat_refresh(array(select id from old_rows));
        else
          perform returns.return_stat_refresh(array(
            select n.id from new_rows n join old_rows o on o.id = n.id
             where (n.store_id, n.created_at, n.currency, n.status, n.type) is distinct from (o.store_id, o.created_at, o.currency, o.status, o.type)));
        end if;
        return null;
      end $$`);
  }
}
