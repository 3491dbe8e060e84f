import { Migration } from '@mikro-orm/migrations';

/**
 * Rollups for `returnStats` (docs/analytics.md), kept by triggers so that every write path,
 * present or future, keeps them exact in its own transaction:
 *
 * - `return_stat_source`: each return's current contribution, one row per (return, dimension,
 *   key): the return itself (dimension ''), and each reason, sku and outcome of its active items.
 *   A change to a return, its items or their lines' skus deletes the return's rows and writes them
 *   again; the difference is the delta.
 * - `return_stat`: those deltas summed per store and UTC hour of `created_at`. Rows are only ever
 *   appended, so writers never wait on each other's rollup rows; compaction folds each hour's rows
 *   into one per key. A read sums every row, compacted or not, so it is exact at any time.
 * - `order_stat`: units ordered per store, UTC hour of the order's `created_at` and sku, and per
 *   store and hour over every sku (`sku` null), the same way (the denominator of `returnRate`);
 *   order lines are summed, so they need no source table.
 */
export class Migration20261220000100_return_stats extends Migration {
  override name = 'Migration20261220000100_return_stats';

  override up(): void {
    this.addSql(`create table returns.return_stat_source (
      return_id text not null,
      store_id text not null,
      created_at timestamptz not null,
      currency text not null,
      status text not null,
      type text not null,
      dim text not null,
      key text not null,
      items integer not null,
      refund numeric not null,
      store_credit numeric not null,
      exchange numeric not null
    )`);
    this.addSql('create index return_stat_source_return_index on returns.return_stat_source (return_id)');
    // The rows of a window's clipped edges (and every row, when a filter the rollup lacks is given).
    this.addSql('create index return_stat_source_window_index on returns.return_stat_source (store_id, dim, created_at)');

    this.addSql(`create table returns.return_stat (
      store_id text not null,
      slot timestamptz not null,
      currency text not null,
      status text not null,
      type text not null,
      dim text not null,
      key text not null,
      returns integer not null,
      items integer not null,
      refund numeric not null,
      store_credit numeric not null,
      exchange numeric not null,
      compacted boolean not null default false
    )`);
    this.addSql('create index return_stat_read_index on returns.return_stat (store_id, dim, slot)');
    this.addSql('create index return_stat_dirty_index on returns.return_stat (store_id, slot) where not compacted');

    this.addSql(`create table returns.order_stat (
      store_id text not null,
      slot timestamptz not null,
      sku text,
      units bigint not null,
      compacted boolean not null default false
    )`);
    // A store's hours over every sku (sku is null), or of some skus, without reading the others.
    this.addSql('create index order_stat_read_index on returns.order_stat (store_id, sku, slot)');
    this.addSql('create index order_stat_dirty_index on returns.order_stat (store_id, slot) where not compacted');
    // Raw edges of the orders: orders created in a range of a store.
    this.addSql('create index order_store_created_index on returns."order" (store_id, created_at)');

    // Each return's contribution as it stands now.
    this.addSql(`create function returns.return_stat_rows(ids text[])
      returns setof returns.return_stat_source language sql stable as $$
      with items as (
        select i.return_id, i.quantity, i.reason, coalesce(l.sku, '') as sku, coalesce(i.outcome, '') as outcome,
               case when i.compensation = 'refund' then i.refund_amount else 0 end as refund,
               case when i.compensation = 'store_credit' then i.refund_amount else 0 end as store_credit,
               case when i.compensation = 'exchange' then i.refund_amount else 0 end as exchange
          from returns.return_item i join returns.order_line_item l on l.id = i.order_line_item_id
          join unnest(ids) as u(id) on u.id = i.return_id
         where i.status = 'active'
      ), keyed as (
        select id as return_id, '' as dim, '' as key, 0 as quantity, 0::numeric as refund, 0::numeric as store_credit, 0::numeric as exchange
          from unnest(ids) as u(id)
        union all select return_id, '', '', quantity, refund, store_credit, exchange from items
        union all select return_id, 'REASON', reason, quantity, refund, store_credit, exchange from items
        union all select return_id, 'SKU', sku, quantity, refund, store_credit, exchange from items
        union all select return_id, 'OUTCOME', outcome, quantity, refund, store_credit, exchange from items
      )
      select r.id, r.store_id, r.created_at, r.currency, r.status, r.type, k.dim, k.key,
             sum(k.quantity)::int, sum(k.refund), sum(k.store_credit), sum(k.exchange)
        from keyed k join returns.return r on r.id = k.return_id
       group by r.id, k.dim, k.key
    $$`);

    // Rewrites the returns' contributions and appends the difference to the rollup. Ids are joined
    // (unnest), not compared with = any(): a bulk change of many returns stays a hash join.
    this.addSql(`create function returns.return_stat_refresh(ids text[]) returns void language plpgsql as $$
      begin
        if coalesce(cardinality(ids), 0) = 0 then return; end if;
        ids := array(select distinct unnest(ids));
        -- One refresh of a return at a time (a writer usually holds the lock already); the statement
        -- below then starts after the other one committed, and sees what it wrote.
        perform 1 from returns.return r join unnest(ids) as u(id) on u.id = r.id order by r.id for update of r;
        with old as (
          delete from returns.return_stat_source s using unnest(ids) as u(id) where s.return_id = u.id returning s.*
        ), new as (
          insert into returns.return_stat_source select * from returns.return_stat_rows(ids) returning *
        ), changes as (
          select *, 1 as sign from new union all select *, -1 from old
        )
        insert into returns.return_stat (store_id, slot, currency, status, type, dim, key, returns, items, refund, store_credit, exchange)
        select store_id, date_bin('1 hour', created_at, timestamptz '1970-01-01 00:00:00+00'), currency, status, type, dim, key,
               sum(sign), sum(sign * items), sum(sign * refund), sum(sign * store_credit), sum(sign * exchange)
          from changes
         group by 1, 2, 3, 4, 5, 6, 7
        having sum(sign) <> 0 or sum(sign * items) <> 0 or sum(sign * refund) <> 0 or sum(sign * store_credit) <> 0 or sum(sign * exchange) <> 0;
      end $$`);

    this.addSql(`create function returns.return_stat_on_return() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          perform returns.return_stat_refresh(array(select id from new_rows));
        elsif tg_op = 'DELETE' then
          perform returns.return_stat_refresh(array(select id from old_rows));
        else
          perform returns.return_stat_refresh(array(
            select n.id from new_rows n join old_rows o on o.id = n.id
             where (n.store_id, n.created_at, n.currency, n.status, n.type) is distinct from (o.store_id, o.created_at, o.currency, o.status, o.type)));
        end if;
        return null;
      end $$`);
    this.addSql(`create function returns.return_stat_on_item() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          perform returns.return_stat_refresh(array(select distinct return_id from new_rows));
        elsif tg_op = 'DELETE' then
          perform returns.return_stat_refresh(array(select distinct return_id from old_rows));
        else
          perform returns.return_stat_refresh(array(
            select distinct unnest(array[n.return_id, o.return_id]) from new_rows n join old_rows o on o.id = n.id
             where (n.return_id, n.order_line_item_id, n.quantity, n.reason, n.compensation, n.refund_amount, n.outcome, n.status)
                   is distinct from (o.return_id, o.order_line_item_id, o.quantity, o.reason, o.compensation, o.refund_amount, o.outcome, o.status)));
        end if;
        return null;
      end $$`);
    for (const op of ['insert', 'update', 'delete'] as const) {
      const transition = op === 'insert' ? 'new table as new_rows' : op === 'delete' ? 'old table as old_rows' : 'old table as old_rows new table as new_rows';
      this.addSql(`create trigger return_stat_${op} after ${op} on returns.return referencing ${transition} for each statement execute function returns.return_stat_on_return()`);
      this.addSql(`create trigger return_item_stat_${op} after ${op} on returns.return_item referencing ${transition} for each statement execute function returns.return_stat_on_item()`);
    }

    // Units ordered: a line counts while it is on its order (not removed), in the hour its order was created.
    this.addSql(`create function returns.order_stat_add(line_orders text[], line_skus text[], line_units bigint[]) returns void language sql as $$
      insert into returns.order_stat (store_id, slot, sku, units)
      select o.store_id, date_bin('1 hour', o.created_at, timestamptz '1970-01-01 00:00:00+00') as slot, c.sku, sum(c.units)
        from unnest(line_orders, line_skus, line_units) as c(order_id, sku, units) join returns."order" o on o.id = c.order_id
       group by grouping sets ((o.store_id, slot, c.sku), (o.store_id, slot)) having sum(c.units) <> 0
    $$`);
    // A statement's transition tables exist only for its own operation, hence one branch per operation.
    this.addSql(`create function returns.order_stat_on_line() returns trigger language plpgsql as $$
      declare
        line_orders text[];
        line_skus text[];
        line_units bigint[];
      begin
        if tg_op = 'INSERT' then
          select array_agg(n.order_id), array_agg(coalesce(n.sku, '')), array_agg(n.quantity::bigint) into line_orders, line_skus, line_units
            from new_rows n where n.removed_at is null;
        elsif tg_op = 'DELETE' then
          select array_agg(o.order_id), array_agg(coalesce(o.sku, '')), array_agg(-o.quantity::bigint) into line_orders, line_skus, line_units
            from old_rows o where o.removed_at is null;
        else
          select array_agg(c.order_id), array_agg(c.sku), array_agg(c.units) into line_orders, line_skus, line_units from (
            select n.order_id, coalesce(n.sku, '') as sku, n.quantity::bigint as units from new_rows n where n.removed_at is null
            union all
            select o.order_id, coalesce(o.sku, ''), -o.quantity::bigint from old_rows o where o.removed_at is null) c;
          -- A line's sku is part of its returns' contributions.
          perform returns.return_stat_refresh(array(
            select distinct i.return_id from new_rows n join old_rows o on o.id = n.id join returns.return_item i on i.order_line_item_id = n.id
             where n.sku is distinct from o.sku));
        end if;
        if line_orders is not null then perform returns.order_stat_add(line_orders, line_skus, line_units); end if;
        return null;
      end $$`);
    // An order whose created date an update corrects moves its lines' units to the new hour.
    this.addSql(`create function returns.order_stat_on_order() returns trigger language plpgsql as $$
      begin
        insert into returns.order_stat (store_id, slot, sku, units)
        select store_id, date_bin('1 hour', created_at, timestamptz '1970-01-01 00:00:00+00') as slot, sku, sum(units)
          from (
            select n.store_id, n.created_at, coalesce(l.sku, '') as sku, l.quantity::bigint as units
              from new_rows n join old_rows o on o.id = n.id join returns.order_line_item l on l.order_id = n.id
             where l.removed_at is null and (n.store_id, n.created_at) is distinct from (o.store_id, o.created_at)
            union all
            select o.store_id, o.created_at, coalesce(l.sku, ''), -l.quantity::bigint
              from new_rows n join old_rows o on o.id = n.id join returns.order_line_item l on l.order_id = n.id
             where l.removed_at is null and (n.store_id, n.created_at) is distinct from (o.store_id, o.created_at)
          ) c
         group by grouping sets ((store_id, slot, sku), (store_id, slot)) having sum(units) <> 0;
        return null;
      end $$`);
    for (const op of ['insert', 'update', 'delete'] as const) {
      const transition = op === 'insert' ? 'new table as new_rows' : op === 'delete' ? 'old table as old_rows' : 'old table as old_rows new table as new_rows';
      this.addSql(`create trigger order_line_stat_${op} after ${op} on returns.order_line_item referencing ${transition} for each statement execute function returns.order_stat_on_line()`);
    }
    this.addSql(
      `create trigger order_stat_update after update on returns."order" referencing old table as old_rows new table as new_rows for each statement execute function returns.order_stat_on_order()`,
    );

    // What the returns and orders already stored contribute.
    this.addSql('select returns.return_stat_refresh(array(select id from returns.return))');
    this.addSql(`insert into returns.order_stat (store_id, slot, sku, units, compacted)
      select o.store_id, date_bin('1 hour', o.created_at, timestamptz '1970-01-01 00:00:00+00') as slot, coalesce(l.sku, '') as sku, sum(l.quantity), true
        from returns.order_line_item l join returns."order" o on o.id = l.order_id where l.removed_at is null
       group by grouping sets ((o.store_id, slot, coalesce(l.sku, '')), (o.store_id, slot))`);
  }
}
