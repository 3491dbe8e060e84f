import { Conditions, keysetPage } from '../../platform/db/keyset.js';
import { sql, type EntityManager, type Orm } from '../../platform/db/orm.js';
import { mapPage, type Page, type PageRequest } from '../../platform/pagination.js';
import { timeBoundInstant } from '../../platform/validation/index.js';
import type { ReturnFilter } from './returns.schemas.js';
import { RETURN_COLUMNS, RETURN_ORDER, RETURN_PARTS } from './returns.sql.js';
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
    return sql<CommentRow>(this.orm.em.fork(), `select id, return_id as "returnId", message, created_at as "createdAt" from return_comment where return_id = $1 order by created_at, id`, [returnId]);
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
