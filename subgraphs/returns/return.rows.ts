import { Conditions, keysetPage } from '../../platform/db/keyset.js';
import { sql, type EntityManager, type Orm } from '../../platform/db/orm.js';
import type { Page, PageRequest } from '../../platform/api/pagination.js';
import { timeBoundInstant } from '../../platform/validation/index.js';
import { ORDER_COLUMNS, ORDER_LINES, type Address, type OrderLineRow, type OrderRow } from './order.rows.js';
import { RELEASED_STATUSES } from './return.rules.js';
import type { ReturnCondition, ReturnFilter, ReturnLookup, ReturnWindow } from './return.schemas.js';

/**
 * Returns as stored (camelCase aliases from SQL), their column lists and the
 * reads of them: whole returns' rows by id (what the DataLoader batches),
 * lists, lookups and windows, comments, timeline, and the units returns hold.
 * The views are assembled from these rows in return.view.ts.
 */

export interface ReturnRow {
  id: string;
  storeId: string;
  compatId: string;
  orderId: string;
  orderName: string;
  externalOrderId: string;
  orderCompatId: string;
  status: string;
  type: string;
  provider: string;
  currency: string;
  source: ReturnSource;
  destination: ReturnDestination;
  notes: string | null;
  compensationMethods: string[];
  shipment: Shipment | null;
  shipments: Shipment[];
  shipmentRecorded: boolean;
  createdAt: Date;
  updatedAt: Date;
  closedAt: Date | null;
  erasedAt: Date | null;
  /** Imported returns (`POST /stores/{storeId}/returns/bulk`): when, and the other system's reference. */
  importedAt: Date | null;
  externalReferenceId: string | null;
  externalProvider: string | null;
  /** Whether the return's order is the one made for an imported return (no order of the store). */
  orderImported: boolean;
}

export interface ReturnItemRow {
  id: string;
  returnId: string;
  orderLineItemId: string;
  lineExternalId: string;
  quantity: number;
  reason: string;
  reasonCode: string | null;
  customerComment: string | null;
  compensation: string;
  /** The merchant's processing outcome: null until the return is processed. */
  outcome: string | null;
  /** An exchange for the same variant (`same_item_replacement`). */
  sameItemReplacement: boolean;
  /** Whether completion puts the item back in stock (processing may say not to). */
  restock?: boolean;
  refundAmount: string;
  productValue: string;
  status: string;
  productId: string | null;
  variantId: string | null;
  sku: string | null;
  title: string | null;
  variantTitle: string | null;
  /** The barcode given for the line (imported returns), else the UPC of the store's product of this sku (inventory's `product.upserted` events, kept in `product_fact`). */
  upc?: string | null;
  /** The item's condition as graded (imported returns name it). */
  grade?: string | null;
  /** The order line's own facts. */
  lineCompatId: string;
  lineQuantity: number;
  linePrice: string;
  lineTax: string;
  lineDiscount: string;
}

/** A tag as a return shows it. */
export interface ReturnTagOnReturn {
  name: string;
  source: string;
}

export interface CommentRow {
  id: string;
  compatId: string;
  returnId: string;
  message: string;
  /** A picture (base64) the comment carries instead of, or beside, its message. */
  image: string | null;
  createdAt: Date;
}

export interface ReturnSource {
  emailAddress: string | null;
  mailingAddress: Address | null;
  name: { given: string | null; surname: string | null };
  phoneNumber: string | null;
}

export interface ReturnDestination {
  mailingAddress: Address | null;
  phoneNumber: string | null;
}

export interface Shipment {
  carrier: string | null;
  status: string;
  tracker: string | null;
  trackingUrl: string | null;
  postageLabel: string | null;
  formLabel: string | null;
  shipmentGroupId: string | null;
  itemIds: string[];
  externalLocationId: string | null;
  estimatedDeliveryDate: string | null;
  deliveredAt: string | null;
}

export const RETURN_COLUMNS = `r.id, r.store_id as "storeId", r.compat_id::text as "compatId", r.order_id as "orderId", r.order_name as "orderName",
  o.external_id as "externalOrderId", o.compat_id::text as "orderCompatId", r.status, r.type, r.provider, r.currency, r.source, r.destination, r.notes,
  r.compensation_methods as "compensationMethods", r.shipment, r.shipments, r.shipment_recorded as "shipmentRecorded",
  r.created_at as "createdAt", r.updated_at as "updatedAt", r.closed_at as "closedAt", r.erased_at as "erasedAt",
  r.imported_at as "importedAt", r.external_reference_id as "externalReferenceId", r.external_provider as "externalProvider", o.imported_at is not null as "orderImported"`;

export const ITEM_COLUMNS = `i.id, i.return_id as "returnId", i.order_line_item_id as "orderLineItemId", l.external_id as "lineExternalId",
  i.quantity, i.reason, i.reason_code as "reasonCode", i.customer_comment as "customerComment", i.compensation,
  i.outcome, i.same_item_replacement as "sameItemReplacement", i.refund_amount::text as "refundAmount", i.product_value::text as "productValue", i.status, l.product_id as "productId",
  l.variant_id as "variantId", l.sku, l.title, l.variant_title as "variantTitle", l.compat_id::text as "lineCompatId", l.quantity as "lineQuantity",
  l.price::text as "linePrice", l.tax::text as "lineTax", l.discount::text as "lineDiscount"`;

/**
 * A return's active items and its comments as JSON arrays, so one query loads
 * whole returns (numerics as text: JSON numbers would lose exactness).
 */
const RETURN_PARTS = `
  coalesce((select json_agg(json_build_object(
      'id', i.id, 'returnId', i.return_id, 'orderLineItemId', i.order_line_item_id, 'lineExternalId', l.external_id,
      'quantity', i.quantity, 'reason', i.reason, 'reasonCode', i.reason_code, 'customerComment', i.customer_comment,
      'compensation', i.compensation, 'outcome', i.outcome, 'sameItemReplacement', i.same_item_replacement, 'restock', i.restock, 'refundAmount', i.refund_amount::text, 'productValue', i.product_value::text, 'status', i.status,
      'productId', l.product_id, 'variantId', l.variant_id, 'sku', l.sku, 'title', l.title, 'variantTitle', l.variant_title,
      'upc', coalesce(l.upc, (select f.upc from product_fact f where f.store_id = r.store_id and f.sku = l.sku)), 'grade', i.grade,
      'lineCompatId', l.compat_id::text, 'lineQuantity', l.quantity, 'linePrice', l.price::text, 'lineTax', l.tax::text, 'lineDiscount', l.discount::text) order by i.position)
    from return_item i join order_line_item l on l.id = i.order_line_item_id where i.return_id = r.id and i.status = 'active'), '[]') as items,
  coalesce((select json_agg(json_build_object('id', c.id, 'compatId', c.compat_id::text, 'returnId', c.return_id, 'message', c.message, 'image', c.image, 'createdAt', c.created_at) order by c.created_at, c.id)
    from return_comment c where c.return_id = r.id), '[]') as comments,
  coalesce((select json_agg(json_build_object('name', t.name, 'source', t.source) order by t.name collate "C")
    from return_tag_link k join return_tag t on t.id = k.tag_id where k.return_id = r.id), '[]') as tags`;

/** The return's order (joined as `o`) with its lines, as one JSON object: no second query for `Return.order`. */
const RETURN_ORDER = `(select row_to_json(x) from (select ${ORDER_COLUMNS}, ${ORDER_LINES}) x) as "orderJson"`;

export const COMMENT_COLUMNS = `id, compat_id::text as "compatId", return_id as "returnId", message, image, created_at as "createdAt"`;

/** A row as `json_build_object` gives it: timestamps are text. */
type Jsonified<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] };

/** A whole return in one row: the return, its active items and its comments (return.view.ts assembles the view). */
export type WholeReturnRow = ReturnRow & {
  items: ReturnItemRow[];
  comments: Jsonified<CommentRow>[];
  tags: ReturnTagOnReturn[];
  /** Present when the query joined the order in (lookups by id; list pages share orders through a loader instead). */
  orderJson?: Jsonified<OrderRow> & { lines: OrderLineRow[] };
};

const FROM = 'return r join "order" o on o.id = r.order_id';

/** The largest window page: lists of a period (reports) may ask for this many returns at once. */
export const WINDOW_PAGE_SIZE = { min: 1, max: 10_000, default: 100 } as const;

/** Adds a return condition (return.schemas.ts#ReturnConditionSchema) on the return aliased `r`. */
export function conditionSql(c: Conditions, condition: ReturnCondition | null | undefined): Conditions {
  if (!condition) return c;
  c.when(condition.statuses, (v) => `r.status = any(${v})`, 'text[]');
  const awaiting = condition.awaitingShipment;
  if (awaiting) {
    c.and(`((r.status = 'open' and not r.shipment_recorded and r.created_at < ${c.p(awaiting.createdBefore, 'timestamptz')}) = ${c.p(awaiting.is, 'boolean')})`);
  }
  return c;
}

/**
 * The list filters on a return's tags and on its being imported (the tag's returns through its
 * links; imported returns through their partial index), for lists and stats (alias of the return).
 */
export function tagAndImportFilters(c: Conditions, filters: Pick<ReturnFilter, 'tag' | 'imported'>, alias: string): Conditions {
  c.when(filters.tag, (v) => `${alias}.id in (select k.return_id from return_tag_link k join return_tag t on t.id = k.tag_id where t.store_id = ${alias}.store_id and t.name = ${v})`);
  if (filters.imported === true) c.and(`${alias}.imported_at is not null`);
  if (filters.imported === false) c.and(`${alias}.imported_at is null`);
  return c;
}

/** Reads of returns: whole returns' rows by id (one query whatever their number) and keyset-paged lists of them. */
export class ReturnReads {
  constructor(private readonly orm: Orm) {}

  /** The given returns, items, comments and order included (in no particular order). */
  async byIds(ids: readonly string[], em: EntityManager = this.orm.em.fork()): Promise<WholeReturnRow[]> {
    if (ids.length === 0) return [];
    return sql<WholeReturnRow>(em, `select ${RETURN_COLUMNS}, ${RETURN_PARTS}, ${RETURN_ORDER} from ${FROM} where r.id = any($1)`, [ids]);
  }

  async comments(returnId: string): Promise<CommentRow[]> {
    return sql<CommentRow>(this.orm.em.fork(), `select ${COMMENT_COLUMNS} from return_comment where return_id = $1 order by created_at, id`, [returnId]);
  }

  async timeline(returnId: string): Promise<{ id: string; kind: string; detail: unknown; createdAt: Date }[]> {
    return sql(this.orm.em.fork(), `select id, kind, detail, created_at as "createdAt" from return_timeline where return_id = $1 order by created_at, id`, [returnId]);
  }

  /** A store's returns, most recently updated first (decisions section 8); time bounds are instants (dates are UTC midnights). */
  async list(storeId: string, filters: ReturnFilter, page: PageRequest): Promise<Page<WholeReturnRow>> {
    const c = new Conditions();
    const instant = (value: string | null | undefined) => (value ? timeBoundInstant(value) : undefined);
    c.and(`r.store_id = ${c.p(storeId)}`)
      .when(filters.status, (v) => `r.status = ${v}`)
      .when(filters.type, (v) => `r.type = ${v}`)
      .when(instant(filters.updatedAtMin), (v) => `r.updated_at >= ${v}`, 'timestamptz')
      .when(instant(filters.updatedAtMax), (v) => `r.updated_at < ${v}`, 'timestamptz')
      .when(instant(filters.createdAtMin), (v) => `r.created_at >= ${v}`, 'timestamptz')
      .when(instant(filters.createdAtMax), (v) => `r.created_at < ${v}`, 'timestamptz')
      .when(filters.providerOrderName, (v) => `r.order_name = ${v}`)
      .when(filters.email?.toLowerCase(), (v) => `lower(o.customer_email) = ${v}`);
    tagAndImportFilters(c, filters, 'r');
    return this.page(c, page);
  }

  /**
   * One return found inside a store by id, numeric id, order name or order
   * numeric id; an order (by name or number) finds its newest return.
   */
  async lookup(storeId: string, by: ReturnLookup, em: EntityManager = this.orm.em.fork()): Promise<WholeReturnRow | null> {
    const c = new Conditions();
    c.and(`r.store_id = ${c.p(storeId)}`)
      .when(by.id, (v) => `r.id = ${v}`)
      .when(by.numericId, (v) => `r.compat_id = ${v}`, 'bigint')
      .when(by.orderName, (v) => `r.order_name = ${v}`)
      .when(by.orderNumericId, (v) => `o.compat_id = ${v}`, 'bigint');
    const [row] = await sql<WholeReturnRow>(
      em,
      `select ${RETURN_COLUMNS}, ${RETURN_PARTS}, ${RETURN_ORDER} from ${FROM} where ${c.where} order by r.created_at desc, r.id desc limit 1`,
      c.params,
    );
    return row ?? null;
  }

  /**
   * A store's returns created (or last updated) within [from, until), newest
   * first on that time, that meet the condition; paged both ways.
   */
  window(storeId: string, window: ReturnWindow, page: PageRequest): Promise<Page<WholeReturnRow>> {
    const column = window.field === 'created_at' ? 'r.created_at' : 'r.updated_at';
    const c = new Conditions();
    c.and(`r.store_id = ${c.p(storeId)}`)
      .and(`${column} >= ${c.p(window.from, 'timestamptz')}`)
      .and(`${column} < ${c.p(window.until, 'timestamptz')}`);
    conditionSql(c, window.condition);
    return keysetPage<WholeReturnRow>(this.orm.em.fork(), { columns: `${RETURN_COLUMNS}, ${RETURN_PARTS}`, from: FROM, where: c, sortColumn: column, idColumn: 'r.id', page });
  }

  async listForOrder(orderId: string, page: PageRequest): Promise<Page<WholeReturnRow>> {
    const c = new Conditions();
    return this.page(c.and(`r.order_id = ${c.p(orderId)}`), page);
  }

  /** Returns of orders whose customer has this email (case-insensitive) or phone. */
  async listForCustomer(storeId: string, email: string | null, phone: string | null, page: PageRequest): Promise<Page<WholeReturnRow>> {
    const c = new Conditions();
    c.and(`r.store_id = ${c.p(storeId)}`).and(`(lower(o.customer_email) = ${c.p(email?.toLowerCase() ?? null)} or o.customer_phone = ${c.p(phone)})`);
    return this.page(c, page);
  }

  private page(where: Conditions, page: PageRequest): Promise<Page<WholeReturnRow>> {
    return keysetPage<WholeReturnRow>(this.orm.em.fork(), { columns: `${RETURN_COLUMNS}, ${RETURN_PARTS}`, from: FROM, where, sortColumn: 'r.updated_at', idColumn: 'r.id', page });
  }
}

/** A store's return ids after `afterId` (none: from the first), in id order: a page of a webhook backfill. */
export async function returnIdsAfter(em: EntityManager, storeId: string, afterId: string | null, limit: number): Promise<string[]> {
  const rows = await sql<{ id: string }>(em, `select id from "return" where store_id = $1 and ($2::text is null or id > $2) order by id limit $3`, [storeId, afterId, limit]);
  return rows.map((r) => r.id);
}

/**
 * Units of each line of an order that returns hold: active items of returns
 * that still count (every status but rejected and deleted). What is still
 * returnable is the ordered quantity minus this (return.rules.ts); an order
 * update may not take it away.
 */
export async function unitsInReturns(em: EntityManager, orderId: string): Promise<{ lineId: string; externalId: string; units: number }[]> {
  return sql(
    em,
    `select l.id as "lineId", l.external_id as "externalId", sum(i.quantity)::int as units
       from return_item i join return r on r.id = i.return_id join order_line_item l on l.id = i.order_line_item_id
      where r.order_id = $1 and i.status = 'active' and r.status <> all($2) group by l.id, l.external_id`,
    [orderId, RELEASED_STATUSES],
  );
}
