import { Conditions, keysetPage } from '../../platform/db/keyset.js';
import { sql, type EntityManager, type Orm } from '../../platform/db/orm.js';
import { mapPage, type Page, type PageRequest } from '../../platform/pagination.js';
import { timeBoundInstant } from '../../platform/validation/index.js';
import type { ReturnCondition, ReturnFilter, ReturnLookup, ReturnWindow } from './returns.schemas.js';
import { COMMENT_COLUMNS, RETURN_COLUMNS, RETURN_ORDER, RETURN_PARTS } from './returns.sql.js';
import { orderView, returnView, type CommentRow, type OrderLineRow, type OrderRow, type ReturnItemRow, type ReturnRow, type ReturnView } from './return.view.js';

type Jsonified<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] };
type ReturnRowWithParts = ReturnRow & {
  items: ReturnItemRow[];
  comments: Jsonified<CommentRow>[];
  /** Present when the query joined the order in (lookups by id; list pages share orders through a loader instead). */
  orderJson?: Jsonified<OrderRow> & { lines: OrderLineRow[] };
};

/** Builds the view from one row of the return query (with its order, when the row carries it). */
function assemble({ items, comments, orderJson, ...row }: ReturnRowWithParts): ReturnView {
  const view = returnView(row, items, comments.map((c) => ({ ...c, createdAt: new Date(c.createdAt) })));
  if (orderJson) {
    const { lines, ...order } = orderJson;
    view.prefetchedOrder = orderView({ ...order, createdAt: new Date(order.createdAt), updatedAt: new Date(order.updatedAt) }, lines);
  }
  return view;
}

const FROM = 'return r join "order" o on o.id = r.order_id';

/** The largest window page: lists of a period (reports) may ask for this many returns at once. */
export const WINDOW_PAGE_SIZE = { min: 1, max: 10_000, default: 100 } as const;

/** Adds a return condition (returns.schemas.ts#ReturnConditionSchema) on the return aliased `r`. */
export function conditionSql(c: Conditions, condition: ReturnCondition | null | undefined): Conditions {
  if (!condition) return c;
  c.when(condition.statuses, (v) => `r.status = any(${v})`, 'text[]');
  const awaiting = condition.awaitingShipment;
  if (awaiting) {
    c.and(`((r.status = 'open' and not r.shipment_recorded and r.created_at < ${c.p(awaiting.createdBefore, 'timestamptz')}) = ${c.p(awaiting.is, 'boolean')})`);
  }
  return c;
}

/** Reads of returns: whole returns by id (one query whatever their number) and keyset-paged lists. */
export class ReturnReads {
  constructor(private readonly orm: Orm) {}

  /** Full views of the given returns, items, comments and order included. */
  async views(ids: readonly string[], em: EntityManager = this.orm.em.fork()): Promise<ReturnView[]> {
    if (ids.length === 0) return [];
    const rows = await sql<ReturnRowWithParts>(em, `select ${RETURN_COLUMNS}, ${RETURN_PARTS}, ${RETURN_ORDER} from ${FROM} where r.id = any($1)`, [ids]);
    return rows.map(assemble);
  }

  async comments(returnId: string): Promise<CommentRow[]> {
    return sql<CommentRow>(this.orm.em.fork(), `select ${COMMENT_COLUMNS} from return_comment where return_id = $1 order by created_at, id`, [returnId]);
  }

  async timeline(returnId: string): Promise<{ id: string; kind: string; detail: unknown; createdAt: Date }[]> {
    return sql(this.orm.em.fork(), `select id, kind, detail, created_at as "createdAt" from return_timeline where return_id = $1 order by created_at, id`, [returnId]);
  }

  /** A store's returns, most recently updated first (decisions section 8); time bounds are instants (dates are UTC midnights). */
  async list(storeId: string, filters: ReturnFilter, page: PageRequest): Promise<Page<ReturnView>> {
    const c = new Conditions();
    const instant = (value: string | null | undefined) => (value ? timeBoundInstant(value) : undefined);
    c.and(`r.store_id = ${c.p(storeId)}`)
      .when(filters.status, (v) => `r.status = ${v}`)
      .when(filters.type, (v) => `r.type = ${v}`)
      .when(instant(filters.updatedAtMin), (v) => `r.updated_at >= ${v}`, 'timestamptz')
      .when(instant(filters.updatedAtMax), (v) => `r.updated_at < ${v}`, 'timestamptz')
      .when(instant(filters.createdAtMin), (v) => `r.created_at >= ${v}`, 'timestamptz')
      .when(instant(filters.createdAtMax), (v) => `r.created_at < ${v}`, 'timestamptz')
      .when(filters.providerOrderName, (v) => `r.order_name = ${v}`);
    return this.page(c, page);
  }

  /**
   * One return found inside a store by id, numeric id, order name or order
   * numeric id; an order (by name or number) finds its newest return.
   */
  async lookup(storeId: string, by: ReturnLookup, em: EntityManager = this.orm.em.fork()): Promise<ReturnView | null> {
    const c = new Conditions();
    c.and(`r.store_id = ${c.p(storeId)}`)
      .when(by.id, (v) => `r.id = ${v}`)
      .when(by.numericId, (v) => `r.compat_id = ${v}`, 'bigint')
      .when(by.orderName, (v) => `r.order_name = ${v}`)
      .when(by.orderNumericId, (v) => `o.compat_id = ${v}`, 'bigint');
    const [row] = await sql<ReturnRowWithParts>(
      em,
      `select ${RETURN_COLUMNS}, ${RETURN_PARTS}, ${RETURN_ORDER} from ${FROM} where ${c.where} order by r.created_at desc, r.id desc limit 1`,
      c.params,
    );
    return row ? assemble(row) : null;
  }

  /**
   * A store's returns created (or last updated) within [from, until), newest
   * first on that time, that meet the condition; paged both ways.
   */
  async window(storeId: string, window: ReturnWindow, page: PageRequest): Promise<Page<ReturnView>> {
    const column = window.field === 'created_at' ? 'r.created_at' : 'r.updated_at';
    const c = new Conditions();
    c.and(`r.store_id = ${c.p(storeId)}`)
      .and(`${column} >= ${c.p(window.from, 'timestamptz')}`)
      .and(`${column} < ${c.p(window.until, 'timestamptz')}`);
    conditionSql(c, window.condition);
    const rows = await keysetPage<ReturnRowWithParts>(this.orm.em.fork(), { columns: `${RETURN_COLUMNS}, ${RETURN_PARTS}`, from: FROM, where: c, sortColumn: column, idColumn: 'r.id', page });
    return mapPage(rows, assemble);
  }

  async listForOrder(orderId: string, page: PageRequest): Promise<Page<ReturnView>> {
    const c = new Conditions();
    return this.page(c.and(`r.order_id = ${c.p(orderId)}`), page);
  }

  /** Returns of orders whose customer has this email (case-insensitive) or phone. */
  async listForCustomer(storeId: string, email: string | null, phone: string | null, page: PageRequest): Promise<Page<ReturnView>> {
    const c = new Conditions();
    c.and(`r.store_id = ${c.p(storeId)}`).and(`(lower(o.customer_email) = ${c.p(email?.toLowerCase() ?? null)} or o.customer_phone = ${c.p(phone)})`);
    return this.page(c, page);
  }

  private async page(where: Conditions, page: PageRequest): Promise<Page<ReturnView>> {
    const rows = await keysetPage<ReturnRowWithParts>(this.orm.em.fork(), { columns: `${RETURN_COLUMNS}, ${RETURN_PARTS}`, from: FROM, where, sortColumn: 'r.updated_at', idColumn: 'r.id', page });
    return mapPage(rows, assemble);
  }
}
