import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Orm } from '../../platform/db/orm.js';
import { toPage, type Page, type PageRequest } from '../../platform/pagination.js';

export interface OrderRow {
  id: string;
  storeId: string;
  provider: string;
  externalId: string;
  name: string;
  currency: string;
  customerEmail: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ReturnRow {
  id: string;
  storeId: string;
  orderId: string;
  status: string;
  type: string;
  createdAt: Date;
  updatedAt: Date;
}

const RETURN_COLUMNS = `id, store_id as "storeId", order_id as "orderId", status, type, created_at as "createdAt", updated_at as "updatedAt"`;
const ORDER_COLUMNS = `id, store_id as "storeId", provider, external_id as "externalId", name, currency,
  customer_email as "customerEmail", created_at as "createdAt", updated_at as "updatedAt"`;

/** Keyset position of a return in lists: updated_at (as microsecond-exact text) then id, both descending. */
function returnSortKey(row: ReturnRow & { sortAt?: string }): [string, string] {
  return [row.sortAt ?? row.updatedAt.toISOString(), row.id];
}

export class ReturnService {
  constructor(private readonly orm: Orm) {}

  private em(): EntityManager {
    return this.orm.em.fork();
  }

  async findReturns(ids: readonly string[]): Promise<ReturnRow[]> {
    return sql<ReturnRow>(this.em(), `select ${RETURN_COLUMNS} from return where id = any($1)`, [ids]);
  }

  async findOrders(ids: readonly string[]): Promise<OrderRow[]> {
    return sql<OrderRow>(this.em(), `select ${ORDER_COLUMNS} from "order" where id = any($1)`, [ids]);
  }

  /**
   * One page of a store's returns, newest update first. The cursor carries the
   * last row's exact `updated_at` (text, microseconds) and id, so the next page
   * starts strictly after it whatever was inserted meanwhile.
   */
  async listReturns(storeId: string, page: PageRequest): Promise<Page<ReturnRow>> {
    return this.listWhere('store_id = $1', [storeId], page);
  }

  /** Keyset page over `return` rows matching `where` (whose parameters come first). */
  private async listWhere(where: string, whereParams: unknown[], page: PageRequest): Promise<Page<ReturnRow>> {
    const params: unknown[] = [...whereParams, page.first + 1];
    const limit = `$${params.length}`;
    let keyset = '';
    if (page.after) {
      params.push(page.after[0], page.after[1]);
      keyset = `and (updated_at, id) < ($${params.length - 1}::timestamptz, $${params.length})`;
    }
    const rows = await sql<ReturnRow & { sortAt: string }>(
      this.em(),
      `select ${RETURN_COLUMNS}, to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "sortAt"
         from return where ${where} ${keyset}
        order by updated_at desc, id desc limit ${limit}`,
      params,
    );
    return toPage(rows, page, returnSortKey);
  }

  async listOrderReturns(orderId: string, page: PageRequest): Promise<Page<ReturnRow>> {
    return this.listWhere('order_id = $1', [orderId], page);
  }

  async listCustomerReturns(storeId: string, email: string | null, phone: string | null, page: PageRequest): Promise<Page<ReturnRow>> {
    const params: unknown[] = [storeId, email?.toLowerCase() ?? null, phone, page.first + 1];
    let keyset = '';
    if (page.after) {
      params.push(page.after[0], page.after[1]);
      keyset = 'and (r.updated_at, r.id) < ($5::timestamptz, $6)';
    }
    const rows = await sql<ReturnRow & { sortAt: string }>(
      this.em(),
      `select r.id, r.store_id as "storeId", r.order_id as "orderId", r.status, r.type, r.created_at as "createdAt",
              r.updated_at as "updatedAt", to_char(r.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "sortAt"
         from return r join "order" o on o.id = r.order_id
        where r.store_id = $1 and (lower(o.customer_email) = $2 or o.customer_phone = $3) ${keyset}
        order by r.updated_at desc, r.id desc limit $4`,
      params,
    );
    return toPage(rows, page, returnSortKey);
  }
}
