import { sql, type Orm } from '../../platform/db/orm.js';

export interface CustomerRow {
  id: string;
  storeId: string;
  email: string | null;
  phoneNumber: string | null;
  firstName: string | null;
  lastName: string | null;
  location: Record<string, unknown> | null;
  customFields: Record<string, unknown> | null;
  createdAt: Date;
  updatedAt: Date;
}

const COLUMNS = `id, store_id as "storeId", email, phone_number as "phoneNumber", first_name as "firstName", last_name as "lastName",
  location, custom_fields as "customFields", created_at as "createdAt", updated_at as "updatedAt"`;

export class CustomerService {
  constructor(private readonly orm: Orm) {}

  async findByIds(ids: readonly string[]): Promise<CustomerRow[]> {
    return sql<CustomerRow>(this.orm.em.fork(), `select ${COLUMNS} from customer where id = any($1)`, [ids]);
  }

  /** Looks a customer up in one store by id, email (case-insensitive) or phone, whichever is given first. */
  async lookup(storeId: string, by: { id?: string; email?: string; phoneNumber?: string }): Promise<CustomerRow | null> {
    const em = this.orm.em.fork();
    let rows: CustomerRow[] = [];
    if (by.id) rows = await sql<CustomerRow>(em, `select ${COLUMNS} from customer where store_id = $1 and id = $2`, [storeId, by.id]);
    else if (by.email) rows = await sql<CustomerRow>(em, `select ${COLUMNS} from customer where store_id = $1 and lower(email) = lower($2)`, [storeId, by.email]);
    else if (by.phoneNumber) rows = await sql<CustomerRow>(em, `select ${COLUMNS} from customer where store_id = $1 and phone_number = $2`, [storeId, by.phoneNumber]);
    return rows[0] ?? null;
  }
}
