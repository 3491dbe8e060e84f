import { Migration } from '@mikro-orm/migrations';

/**
 * `returnStats` of some customers (a segment's contacts, or the filter's email) read for those
 * customers only (docs/analytics.md), so the read grows with the segment, not with the window:
 *
 * - each return's contribution keeps its order's customer (`return_stat_source.email`, lower case,
 *   and `phone`), and two covering indexes list a store's contributions by customer and creation
 *   time with every measure: a segment's returns are index ranges, one per member, read without
 *   the table. An order whose email or phone changes (an update, an erasure) refreshes its
 *   returns, as a change of its creation time does.
 * - `order_units`: the units ordered per order (lines not removed), with the order's customer,
 *   creation time and imported mark, kept by triggers on orders and their lines in the writer's
 *   own transaction. Lines change it by their difference (never a recount: two writers adding
 *   lines to one order each add their own), so it is exact under concurrent writes. Covering
 *   indexes read a segment's ordered units the same way.
 */
export class Migration20270125000100_return_stats_by_customer extends Migration {
  override name = 'Migration20270125000100_return_stats_by_customer';

  override up(): void {
    this.addSql('alter table returns.return_stat_source add column email text, add column phone text');
    this.addSql(`update returns.return_stat_source s set email = lower(o.customer_email), phone = o.customer_phone
      from returns.return r join returns."order" o on o.id = r.order_id where r.id = s.return_id`);
    const measures = 'ordered_at, currency, status, type, key, items, refund, store_credit, exchange';
    this.addSql(`create index return_stat_source_email_index on returns.return_stat_source (store_id, dim, email, created_at) include (${measures}) where email is not null`);
    this.addSql(`create index return_stat_source_phone_index on returns.return_stat_source (store_id, dim, phone, created_at) include (email, ${measures}) where phone is not null`);

    // The contribution as before, with its order's customer last (the table's column order).
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
             case when o.imported_at is null then o.created_at end, lower(o.customer_email), o.customer_phone
        from keyed k join returns.return r on r.id = k.return_id join returns."order" o on o.id = r.order_id
       group by r.id, k.dim, k.key, o.created_at, o.imported_at, o.customer_email, o.customer_phone
    $$`);

    // An order whose creation time, imported mark or customer changes moves its returns' contributions.
    this.addSql(`create or replace function returns.return_order_stat_on_order() returns trigger language plpgsql as $$
      begin
        perform returns.return_stat_refresh(array(
          select r.id from new_rows n join old_rows o on o.id = n.id join returns.return r on r.order_id = n.id
           where (n.created_at, n.imported_at is null, lower(n.customer_email), n.customer_phone)
                 is distinct from (o.created_at, o.imported_at is null, lower(o.customer_email), o.customer_phone)));
        return null;
      end $$`);

    this.addSql(`create table returns.order_units (
      order_id text primary key references returns."order"(id) on delete cascade,
      store_id text not null,
      created_at timestamptz not null,
      email text,
      phone text,
      imported boolean not null,
      units bigint not null default 0
    )`);
    this.addSql('create index order_units_email_index on returns.order_units (store_id, email, created_at) include (units) where not imported and email is not null');
    this.addSql('create index order_units_phone_index on returns.order_units (store_id, phone, created_at) include (email, units) where not imported and phone is not null');

    // A new order has no units until its lines come (they reference it, so they come after).
    this.addSql(`create function returns.order_units_on_order() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          insert into returns.order_units (order_id, store_id, created_at, email, phone, imported)
          select id, store_id, created_at, lower(customer_email), customer_phone, imported_at is not null from new_rows
          on conflict (order_id) do nothing;
        else
          update returns.order_units u
             set created_at = n.created_at, email = lower(n.customer_email), phone = n.customer_phone, imported = n.imported_at is not null
            from new_rows n
           where u.order_id = n.id
             and (u.created_at, u.email, u.phone, u.imported) is distinct from (n.created_at, lower(n.customer_email), n.customer_phone, n.imported_at is not null);
        end if;
        return null;
      end $$`);
    this.addSql(`create trigger order_units_insert after insert on returns."order" referencing new table as new_rows for each statement execute function returns.order_units_on_order()`);
    this.addSql(`create trigger order_units_update after update on returns."order" referencing new table as new_rows for each statement execute function returns.order_units_on_order()`);

    // A line counts while it is on its order (not removed): each statement adds its difference per order.
    this.addSql(`create function returns.order_units_on_line() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then
          update returns.order_units u set units = u.units + d.units
            from (select order_id, sum(quantity) as units from new_rows where removed_at is null group by order_id) d
           where u.order_id = d.order_id and d.units <> 0;
        elsif tg_op = 'DELETE' then
          update returns.order_units u set units = u.units - d.units
            from (select order_id, sum(quantity) as units from old_rows where removed_at is null group by order_id) d
           where u.order_id = d.order_id and d.units <> 0;
        else
          update returns.order_units u set units = u.units + d.units
            from (select order_id, sum(units) as units from (
                    select order_id, quantity::bigint as units from new_rows where removed_at is null
                    union all
                    select order_id, -quantity::bigint from old_rows where removed_at is null) c
                  group by order_id) d
           where u.order_id = d.order_id and d.units <> 0;
        end if;
        return null;
      end $$`);
    for (const op of ['insert', 'update', 'delete'] as const) {
      const transition = op === 'insert' ? 'new table as new_rows' : op === 'delete' ? 'old table as old_rows' : 'old table as old_rows new table as new_rows';
      this.addSql(`create trigger order_units_line_${op} after ${op} on returns.order_line_item referencing ${transition} for each statement execute function returns.order_units_on_line()`);
    }

    // What the orders already stored hold.
    this.addSql(`insert into returns.order_units (order_id, store_id, created_at, email, phone, imported, units)
      select o.id, o.store_id, o.created_at, lower(o.customer_email), o.customer_phone, o.imported_at is not null,
             coalesce((select sum(l.quantity) from returns.order_line_item l where l.order_id = o.id and l.removed_at is null), 0)
        from returns."order" o`);
  }
}
