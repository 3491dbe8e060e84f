import { sql, type EntityManager, type Orm } from '../../../platform/db/orm.js';
import { Conditions, keysetPage } from '../../../platform/db/keyset.js';
import type { Page, PageRequest } from '../../../platform/api/pagination.js';
import { customerColumns, type CustomerRow } from './customer.rows.js';

const CUSTOMER_COLUMNS = customerColumns();

/** The id `$2` of store `$1`, or the profile it was merged into. */
const SURVIVOR_OF_2 = 'coalesce((select m.into_id from customer_merge m where m.merged_id = $2 and m.store_id = $1), $2)';

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
    // A merged profile's id answers as the profile it was merged into.
    if (by.id) rows = await sql<CustomerRow>(em, `select ${CUSTOMER_COLUMNS} from customer where store_id = $1 and id = ${SURVIVOR_OF_2}`, [storeId, by.id]);
    else if (by.email) rows = await sql<CustomerRow>(em, `select ${CUSTOMER_COLUMNS} from customer where store_id = $1 and lower(email) = lower($2)`, [storeId, by.email]);
    else if (by.phoneNumber) rows = await sql<CustomerRow>(em, `select ${CUSTOMER_COLUMNS} from customer where store_id = $1 and phone_number = $2`, [storeId, by.phoneNumber]);
    return rows[0] ?? null;
  }

  /**
   * Customers by id, a merged profile's id answering as the profile it was merged into (entity
   * references from other subgraphs, old links): one row per id asked for that resolves, keyed by it.
   */
  async findByIdsOrAliases(ids: readonly string[]): Promise<Map<string, CustomerRow>> {
    const rows = await sql<CustomerRow & { asked: string }>(
      this.em(),
      `select k.asked, ${customerColumns('c')} from unnest($1::text[]) as k(asked)
         join customer c on c.id = coalesce((select m.into_id from customer_merge m where m.merged_id = k.asked), k.asked)`,
      [ids],
    );
    return new Map(rows.map(({ asked, ...row }) => [asked, row]));
  }

  /** The ids of the profiles merged into this one. */
  async mergedInto(customerId: string): Promise<string[]> {
    const rows = await sql<{ id: string }>(this.em(), 'select merged_id as id from customer_merge where into_id = $1 order by merged_at, merged_id', [customerId]);
    return rows.map((r) => r.id);
  }

  /** A store's customers, newest first. */
  async list(storeId: string, page: PageRequest): Promise<Page<CustomerRow>> {
    const c = new Conditions();
    c.and(`store_id = ${c.p(storeId)}`);
    return keysetPage<CustomerRow>(this.em(), { columns: CUSTOMER_COLUMNS, from: 'customer', where: c, sortColumn: 'created_at', idColumn: 'id', page });
  }
}
