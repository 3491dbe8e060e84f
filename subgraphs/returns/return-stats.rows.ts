import { bucketOf, rangesFrom, readRanges } from '../../platform/analytics/sql.js';
import type { Window } from '../../platform/analytics/time-window.js';
import { Conditions } from '../../platform/db/keyset.js';
import { heavySql, type HeavyReads } from '../../platform/db/replica.js';
import { timeBoundInstant } from '../../platform/validation/index.js';
import { tagAndImportFilters } from './return.rows.js';
import type { ReturnFilter } from './return.schemas.js';

/**
 * The reads behind `returnStats`: the hourly rollups (`return_stat`, by the order's hour
 * `return_order_stat`, `order_stat`) for the whole
 * hours of a window, the per-return rows (`return_stat_source`) and the orders for its edges
 * (migration Migration20261220000100_return_stats). Each answers sums per bucket (or over the
 * window) and key and currency; the view turns them into measures.
 */

/** What a dimension reads: the return's own rows ('') or its items' (by reason, sku, outcome), and the column it groups by. */
export interface StatShape {
  dim: '' | 'REASON' | 'SKU' | 'OUTCOME';
  key: 'status' | 'type' | 'key' | null;
}

export interface StatRow {
  /** The bucket's index in the window (0 when read over the whole window). */
  bucket: number;
  key: string;
  currency: string;
  returns: number;
  items: number;
  refund: string;
  storeCredit: string;
  exchange: string;
}

export interface OrderedRow {
  bucket: number;
  key: string;
  units: number;
}

/** Whose returns and orders a read counts: every customer's, or those whose orders carry one of these emails (lower case) or phone numbers. */
export interface Customers {
  emails: readonly string[];
  phoneNumbers: readonly string[];
}

/** How a read places returns in buckets, and whose it counts. */
export interface StatScope {
  /** CREATED: by the return's creation time; ORDER_DATE: by its order's. */
  basis: 'CREATED' | 'ORDER_DATE';
  customers?: Customers;
}

/**
 * Filters on what the rollups do not keep (a return's update time, its order's name, its tags, its customer;
 * on the order-date basis, the return's own creation time, which that rollup is not keyed by) are read from
 * the rows alone.
 */
function needsRows(filter: ReturnFilter, scope: StatScope): boolean {
  return Boolean(
    filter.updatedAtMin ||
      filter.updatedAtMax ||
      filter.providerOrderName ||
      filter.tag ||
      (filter.imported !== undefined && filter.imported !== null) ||
      filter.email ||
      scope.customers ||
      (scope.basis === 'ORDER_DATE' && (filter.createdAtMin || filter.createdAtMax)),
  );
}

/** The order `o` belongs to one of `customers` (the indexes on the order's lower(email) and phone serve it). */
function ofCustomers(c: Conditions, customers: Customers | undefined, email: string | null | undefined): string {
  const clauses: string[] = [];
  if (customers) clauses.push(`(lower(o.customer_email) = any(${c.p(customers.emails, 'text[]')}) or o.customer_phone = any(${c.p(customers.phoneNumbers, 'text[]')}))`);
  if (email) clauses.push(`lower(o.customer_email) = ${c.p(email.toLowerCase())}`);
  return clauses.map((clause) => ` and ${clause}`).join('');
}

const instantMs = (value: string | null | undefined) => {
  const bound = value ? timeBoundInstant(value) : undefined;
  return bound ? Date.parse(bound) : undefined;
};
const instant = (value: string | null | undefined) => (value ? timeBoundInstant(value) : undefined);

export class ReturnStatsReads {
  constructor(private readonly reads: HeavyReads) {}

  /**
   * Sums per bucket (or over the window: `perBucket` false), key and currency; `top` keeps the largest keys by returns.
   * On the ORDER_DATE basis the window is over the orders' creation times, and a return's createdAt filters are
   * conditions on the return.
   */
  async returns(storeId: string, window: Window, shape: StatShape, filter: ReturnFilter, scope: StatScope, options: { perBucket: boolean; top?: number }): Promise<StatRow[]> {
    const c = new Conditions();
    const store = c.p(storeId);
    const dim = c.p(shape.dim);
    const bucket = options.perBucket ? bucketOf(c, window) : () => '0';
    const rawOnly = needsRows(filter, scope);
    const byOrder = scope.basis === 'ORDER_DATE';
    const { slots, raw } = readRanges(window, {
      perBucket: options.perBucket,
      rawOnly,
      lo: byOrder ? undefined : instantMs(filter.createdAtMin),
      hi: byOrder ? undefined : instantMs(filter.createdAtMax),
    });
    const onReturn = (alias: string) => {
      const f = new Conditions(c.params);
      f.when(filter.status, (v) => `${alias}.status = ${v}`).when(filter.type, (v) => `${alias}.type = ${v}`);
      return f.clauses.map((clause) => ` and ${clause}`).join('');
    };
    const key = (alias: string) => (shape.key ? `${alias}.${shape.key}` : `''`);
    const branches: string[] = [];
    if (slots.length) {
      branches.push(`select ${bucket('s.slot')} as bucket, ${key('s')} as key, s.currency, s.returns, s.items, s.refund, s.store_credit, s.exchange
        from ${rangesFrom(c, slots)} join ${byOrder ? 'return_order_stat' : 'return_stat'} s on s.store_id = ${store} and s.dim = ${dim} and s.slot >= r.lo and s.slot < r.hi${onReturn('s')}`);
    }
    if (raw.length) {
      const rows = new Conditions(c.params);
      rows
        .when(instant(filter.updatedAtMin), (v) => `rr.updated_at >= ${v}`, 'timestamptz')
        .when(instant(filter.updatedAtMax), (v) => `rr.updated_at < ${v}`, 'timestamptz')
        .when(filter.providerOrderName, (v) => `rr.order_name = ${v}`)
        .when(byOrder ? instant(filter.createdAtMin) : undefined, (v) => `x.created_at >= ${v}`, 'timestamptz')
        .when(byOrder ? instant(filter.createdAtMax) : undefined, (v) => `x.created_at < ${v}`, 'timestamptz');
      tagAndImportFilters(rows, filter, 'rr');
      const extra = rows.clauses.map((clause) => ` and ${clause}`).join('');
      const customers = ofCustomers(c, scope.customers, filter.email);
      const measures = `${key('x')} as key, x.currency, 1 as returns, x.items, x.refund, x.store_credit, x.exchange`;
      if (byOrder && !rawOnly) {
        // The edges of the order-date rollup: the contributions whose order was placed in them (ordered_at, kept by the same triggers).
        branches.push(`select ${bucket('x.ordered_at')} as bucket, ${measures}
          from ${rangesFrom(c, raw)} join return_stat_source x on x.store_id = ${store} and x.dim = ${dim} and x.ordered_at >= r.lo and x.ordered_at < r.hi${onReturn('x')}`);
      } else if (byOrder) {
        // The orders placed in each span (their store and creation index), their returns, each return's contribution;
        // an order made for imported returns is no order of the store, placed nowhere (as in the units ordered).
        branches.push(`select ${bucket('o.created_at')} as bucket, ${measures}
          from ${rangesFrom(c, raw)} join "order" o on o.store_id = ${store} and o.created_at >= r.lo and o.created_at < r.hi and o.imported_at is null${customers}
          join return rr on rr.order_id = o.id join return_stat_source x on x.return_id = rr.id and x.dim = ${dim}${onReturn('x')}${extra}`);
      } else {
        const join = rawOnly ? ` join return rr on rr.id = x.return_id${customers ? ' join "order" o on o.id = rr.order_id' : ''}` : '';
        branches.push(`select ${bucket('x.created_at')} as bucket, ${measures}
          from ${rangesFrom(c, raw)} join return_stat_source x on x.store_id = ${store} and x.dim = ${dim} and x.created_at >= r.lo and x.created_at < r.hi${join}${customers}${onReturn('x')}${extra}`);
      }
    }
    if (!branches.length) return [];
    const summed = `select bucket, key, currency, sum(returns)::int as returns, sum(items)::int as items, sum(refund)::text as refund,
        sum(store_credit)::text as "storeCredit", sum(exchange)::text as exchange
      from (${branches.join(' union all ')}) t group by bucket, key, currency`;
    if (options.top === undefined) return heavySql<StatRow>(this.reads, summed, c.params);
    return heavySql<StatRow>(this.reads, `with t as (${summed}), top as (select key from t group by key order by sum(returns) desc, key limit ${c.p(options.top, 'int')})
       select t.* from t join top using (key)`,
      c.params,
    );
  }

  /**
   * Units ordered per bucket (or over the window), in all (key '': the rollup's rows over every sku)
   * or for each of `skus`; only by `customers` (or the filter's email) when given: those are read
   * from the orders. With `fulfilled`, the units of those orders shipped instead (in fulfillments
   * that are not cancelled), read from the fulfillments of the window's orders: the orders of a
   * store's window through their index, then each one's lines and fulfillments.
   */
  async ordered(storeId: string, window: Window, options: { perBucket: boolean; skus?: string[]; fulfilled?: boolean; customers?: Customers; email?: string | null }): Promise<OrderedRow[]> {
    const c = new Conditions();
    const store = c.p(storeId);
    const bucket = options.perBucket ? bucketOf(c, window) : () => '0';
    const { slots, raw } = readRanges(window, { perBucket: options.perBucket, rawOnly: Boolean(options.fulfilled || options.customers || options.email) });
    const skus = options.skus ? c.p(options.skus, 'text[]') : undefined;
    const key = (column: string) => (skus ? column : `''`);
    const branches: string[] = [];
    if (slots.length) {
      branches.push(`select ${bucket('s.slot')} as bucket, ${key('s.sku')} as key, s.units
        from ${rangesFrom(c, slots)} join order_stat s on s.store_id = ${store} and ${skus ? `s.sku = any(${skus})` : 's.sku is null'} and s.slot >= r.lo and s.slot < r.hi`);
    }
    if (raw.length) {
      const units = options.fulfilled
        ? `(select coalesce(sum(fl.quantity), 0) from fulfillment_line fl join fulfillment f on f.id = fl.fulfillment_id where fl.order_line_item_id = l.id and f.status <> 'cancelled')`
        : 'l.quantity';
      // Orders made for imported returns are no orders of the store: they count nowhere.
      branches.push(`select ${bucket('o.created_at')} as bucket, ${key("coalesce(l.sku, '')")} as key, ${units}::bigint as units
        from ${rangesFrom(c, raw)} join "order" o on o.store_id = ${store} and o.created_at >= r.lo and o.created_at < r.hi and o.imported_at is null${ofCustomers(c, options.customers, options.email)}
        join order_line_item l on l.order_id = o.id${options.fulfilled ? '' : ' and l.removed_at is null'}${skus ? ` and coalesce(l.sku, '') = any(${skus})` : ''}`);
    }
    if (!branches.length) return [];
    return heavySql<OrderedRow>(this.reads, `select bucket, key, sum(units)::float8 as units from (${branches.join(' union all ')}) t group by bucket, key`, c.params);
  }
}
