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
  return Boolean(needsReturn(filter) || filter.email || scope.customers || (scope.basis === 'ORDER_DATE' && (filter.createdAtMin || filter.createdAtMax)));
}

/** Filters the contribution rows do not keep either: read from each row's return. */
function needsReturn(filter: ReturnFilter): boolean {
  return Boolean(filter.updatedAtMin || filter.updatedAtMax || filter.providerOrderName || filter.tag || (filter.imported !== undefined && filter.imported !== null));
}

/**
 * Whose rows a read keeps, as alternatives each read by a branch of its own: those of the customers'
 * emails, then those of their phone numbers that are not theirs by email already (so that a row of
 * both counts once, and each branch is one range per customer of an index on the email or the phone);
 * with the filter's email, only that customer's. Every row, in one branch, when the read names nobody;
 * no branch when it names customers and none has an email or a phone.
 */
function whose(c: Conditions, columns: { email: string; phone: string }, customers: Customers | undefined, email: string | null | undefined): string[] {
  const branches: string[] = [];
  if (!customers) branches.push('');
  else if (customers.emails.length || customers.phoneNumbers.length) {
    const emails = c.p(customers.emails, 'text[]');
    if (customers.emails.length) branches.push(` and ${columns.email} = any(${emails})`);
    if (customers.phoneNumbers.length) {
      branches.push(` and ${columns.phone} = any(${c.p(customers.phoneNumbers, 'text[]')}) and (${columns.email} is null or ${columns.email} <> all(${emails}))`);
    }
  }
  if (!email || !branches.length) return branches;
  const one = c.p(email.toLowerCase());
  return branches.map((branch) => `${branch} and ${columns.email} = ${one}`);
}

/**
 * The customer columns of the contribution rows, of `order_units` and of the orders (Migration20270125000100_return_stats_by_customer;
 * the orders' indexes are on these expressions).
 */
const CONTRIBUTION = { email: 'x.email', phone: 'x.phone' };
const ORDER_UNITS = { email: 'u.email', phone: 'u.phone' };
const ORDER = { email: 'lower(o.customer_email)', phone: 'o.customer_phone' };

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
      // The contributions placed in the spans (by their return's creation, or by their order's: null for
      // the orders made for imported returns, which are placed nowhere), of the customers named.
      const time = byOrder ? 'x.ordered_at' : 'x.created_at';
      const rows = new Conditions(c.params);
      rows
        .when(instant(filter.updatedAtMin), (v) => `rr.updated_at >= ${v}`, 'timestamptz')
        .when(instant(filter.updatedAtMax), (v) => `rr.updated_at < ${v}`, 'timestamptz')
        .when(filter.providerOrderName, (v) => `rr.order_name = ${v}`)
        .when(byOrder ? instant(filter.createdAtMin) : undefined, (v) => `x.created_at >= ${v}`, 'timestamptz')
        .when(byOrder ? instant(filter.createdAtMax) : undefined, (v) => `x.created_at < ${v}`, 'timestamptz');
      tagAndImportFilters(rows, filter, 'rr');
      const extra = rows.clauses.map((clause) => ` and ${clause}`).join('');
      const join = needsReturn(filter) ? ' join return rr on rr.id = x.return_id' : '';
      const spans = rangesFrom(c, raw);
      for (const who of whose(c, CONTRIBUTION, scope.customers, filter.email)) {
        branches.push(`select ${bucket(time)} as bucket, ${key('x')} as key, x.currency, 1 as returns, x.items, x.refund, x.store_credit, x.exchange
          from ${spans} join return_stat_source x on x.store_id = ${store} and x.dim = ${dim} and ${time} >= r.lo and ${time} < r.hi${who}${onReturn('x')}${join}${extra}`);
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
   * from `order_units` (per order, all skus), or with `skus` from their orders' lines. With `fulfilled`, the units of those orders shipped instead (in fulfillments
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
      const spans = rangesFrom(c, raw);
      if ((options.customers || options.email) && !options.fulfilled && !skus) {
        // Some customers' units, all skus: their orders' totals (kept per order with its customer).
        for (const who of whose(c, ORDER_UNITS, options.customers, options.email)) {
          branches.push(`select ${bucket('u.created_at')} as bucket, '' as key, u.units
            from ${spans} join order_units u on u.store_id = ${store} and not u.imported and u.created_at >= r.lo and u.created_at < r.hi${who}`);
        }
      } else {
        const units = options.fulfilled
          ? `(select coalesce(sum(fl.quantity), 0) from fulfillment_line fl join fulfillment f on f.id = fl.fulfillment_id where fl.order_line_item_id = l.id and f.status <> 'cancelled')`
          : 'l.quantity';
        // Orders made for imported returns are no orders of the store: they count nowhere.
        for (const who of whose(c, ORDER, options.customers, options.email)) {
          branches.push(`select ${bucket('o.created_at')} as bucket, ${key("coalesce(l.sku, '')")} as key, ${units}::bigint as units
            from ${spans} join "order" o on o.store_id = ${store} and o.created_at >= r.lo and o.created_at < r.hi and o.imported_at is null${who}
            join order_line_item l on l.order_id = o.id${options.fulfilled ? '' : ' and l.removed_at is null'}${skus ? ` and coalesce(l.sku, '') = any(${skus})` : ''}`);
        }
      }
    }
    if (!branches.length) return [];
    return heavySql<OrderedRow>(this.reads, `select bucket, key, sum(units)::float8 as units from (${branches.join(' union all ')}) t group by bucket, key`, c.params);
  }
}
