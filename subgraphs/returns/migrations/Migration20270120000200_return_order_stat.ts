import { Migration } from '@mikro-orm/migrations';

/**
 * `returnStats(basis: ORDER_DATE)` from a rollup (docs/analytics.md): each return's contribution
 * keeps its order's creation time (`return_stat_source.ordered_at`; null for the orders made for
 * imported returns, which are placed nowhere), and `return_order_stat` sums the same deltas as
 * `return_stat` per UTC hour of that time, appended by the same refresh and folded by the same
 * compaction. An order whose creation time (or imported mark) changes refreshes its returns, so
 * their contributions move to the new hour. The rows of a window's edges are read through
 * `return_stat_source (store_id, dim, ordered_at)`.
 */
export class Migration20270120000200_return_order_stat extends Migration {
  override name = 'Migration20270120000200_return_order_stat';

  override up(): void {
    this.addSql('alter table returns.return_stat_source add column ordered_at timestamptz');
    this.addSql(`update returns.return_stat_source s set ordered_at = o.created_at
      from returns.return r join returns."order" o on o.id = r.order_id where r.id = s.return_id and o.imported_at is null`);
    this.addSql('create index return_stat_source_ordered_index on returns.return_stat_source (store_id, dim, ordered_at) where ordered_at is not null');

    this.addSql(`create table returns.return_order_stat (
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
    this.addSql('create index return_order_stat_read_index on returns.return_order_stat (store_id, dim, slot)');
    this.addSql('create index return_order_stat_dirty_index on returns.return_order_stat (store_id, slot) where not compacted');

    // The contribution as before, with the order's creation time last (the table's column order).
    this.addSql(`create or replace function returns.return_stat_rows(ids text[])
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
             sum(k.quantity)::int, sum(k.refund), sum(k.store_credit), sum(k.exchange),
             case when o.imported_at is null then o.created_at end
        from keyed k join returns.return r on r.id = k.return_id join returns."order" o on o.id = r.order_id
       group by r.id, k.dim, k.key, o.created_at, o.imported_at
    $$`);

    // The same refresh, its difference appended to both rollups: by the return's hour and by its order's.
    this.addSql(`create or replace function returns.return_stat_refresh(ids text[]) returns void language plpgsql as $$
      begin
        if coalesce(cardinality(ids), 0) = 0 then return; end if;
        ids := array(select distinct unnest(ids));
        perform 1 from returns.return r join unnest(ids) as u(id) on u.id = r.id order by r.id for update of r;
        with old as (
          delete from returns.return_stat_source s using unnest(ids) as u(id) where s.return_id = u.id returning s.*
        ), new as (
          insert into returns.return_stat_source select * from returns.return_stat_rows(ids) returning *
        ), changes as (
          select *, 1 as sign from new union all select *, -1 from old
        ), by_created as (
          insert into returns.return_stat (store_id, slot, currency, status, type, dim, key, returns, items, refund, store_credit, exchange)
          select store_id, date_bin('1 hour', created_at, timestamptz '1970-01-01 00:00:00+00'), currency, status, type, dim, key,
                 sum(sign), sum(sign * items), sum(sign * refund), sum(sign * store_credit), sum(sign * exchange)
            from changes
           group by 1, 2, 3, 4, 5, 6, 7
          having sum(sign) <> 0 or sum(sign * items) <> 0 or sum(sign * refund) <> 0 or sum(sign * store_credit) <> 0 or sum(sign * exchange) <> 0
          returning 1
        )
        insert into returns.return_order_stat (store_id, slot, currency, status, type, dim, key, returns, items, refund, store_credit, exchange)
        select store_id, date_bin('1 hour', ordered_at, timestamptz '1970-01-01 00:00:00+00'), currency, status, type, dim, key,
               sum(sign), sum(sign * items), sum(sign * refund), sum(sign * store_credit), sum(sign * exchange)
          from changes where ordered_at is not null
         group by 1, 2, 3, 4, 5, 6, 7
        having sum(sign) <> 0 or sum(sign * items) <> 0 or sum(sign * refund) <> 0 or sum(sign * store_credit) <> 0 or sum(sign * exchange) <> 0;
      end $$`);

    // An order whose creation time or imported mark changes moves its returns' contributions.
    this.addSql(`create function returns.return_order_stat_on_order() returns trigger language plpgsql as $$
      begin
        perform returns.return_stat_refresh(array(
          select r.id from new_rows n join old_rows o on o.id = n.id join returns.return r on r.order_id = n.id
           where (n.created_at, n.imported_at is null) is distinct from (o.created_at, o.imported_at is null)));
        return null;
      end $$`);
    this.addSql(
      `create trigger return_order_stat_update after update on returns."order" referencing old table as old_rows new table as new_rows for each statement execute function returns.return_order_stat_on_order()`,
    );

    // What the returns already stored contribute, by their orders' hours.
    this.addSql(`insert into returns.return_order_stat (store_id, slot, currency, status, type, dim, key, returns, items, refund, store_credit, exchange, compacted)
      select store_id, date_bin('1 hour', ordered_at, timestamptz '1970-01-01 00:00:00+00'), currency, status, type, dim, key,
             count(*), sum(items), sum(refund), sum(store_credit), sum(exchange), true
        from returns.return_stat_source where ordered_at is not null
       group by 1, 2, 3, 4, 5, 6, 7`);
  }
}
