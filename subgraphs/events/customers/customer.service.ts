import { sql, type EntityManager, type Orm } from '../../../platform/db/orm.js';
import { Conditions, keysetPage } from '../../../platform/db/keyset.js';
import type { Page, PageRequest } from '../../../platform/api/pagination.js';
import { customerColumns, type CustomerRow } from './customer.rows.js';

const CUSTOMER_COLUMNS = customerColumns();

export class CustomerService {
  constructor(private readonly orm: Orm) {}

  private em(): EntityManager {
    return this.orm.em.fork();
  }

  async findByIds(ids: readonly string[]): Promise<CustomerRow[]> {
    return sql<CustomerRow>(this.em(), `select ${CUSTOMER_COLUMNS} from customer where id = any($1)`, [ids]);
  }

  /** Looks a customer up in one store by id, email (case-insensitive) or phone, whichever is given first. */
  async lookup(storeId: string, by: { id?: string; email?: string; phoneNumber?: string }): Promise<CustomerRow | null> {
    const em = this.em();
    let rows: CustomerRow[] = [];
    if (by.id) rows = await sql<CustomerRow>(em, `select ${CUSTOMER_COLUMNS} from customer where store_id = $1 and id = $2`, [storeId, by.id]);
    else if (by.email) rows = await sql<CustomerRow>(em, `select ${CUSTOMER_COLUMNS} from customer where store_id = $1 and lower(email) = lower($2)`, [storeId, by.email]);
    else if (by.phoneNumber) rows = await sql<CustomerRow>(em, `select ${CUSTOMER_COLUMNS} from customer where store_id = $1 and phone_number = $2`, [storeId, by.phoneNumber]);
    return rows[0] ?? null;
  }

  /** A store's customers, newest first. */
  async list(storeId: string, page: PageRequest): Promise<Page<CustomerRow>> {
    const c = new Conditions();
    c.and(`store_id = ${c.p(storeId)}`);
    return keysetPage<CustomerRow>(this.em(), { columns: CUSTOMER_COLUMNS, from: 'customer', where: c, sortColumn: 'created_at', idColumn: 'id', page });
  }
}
