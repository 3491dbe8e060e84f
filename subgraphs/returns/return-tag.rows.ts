import { sql, type EntityManager, type Orm } from '../../platform/db/orm.js';

/** Return tags as stored, and the reads of them. */
export interface ReturnTagRow {
  id: string;
  storeId: string;
  name: string;
  pillTheme: string;
  source: string;
  numericId: string;
  createdAt: Date;
  updatedAt: Date;
}

const TAG_COLUMNS = `t.id, t.store_id as "storeId", t.name, t.pill_theme as "pillTheme", t.source, t.numeric_id::text as "numericId",
  t.created_at as "createdAt", t.updated_at as "updatedAt"`;

export class ReturnTagReads {
  constructor(private readonly orm: Orm) {}

  /** Every tag of a store, by name. */
  list(storeId: string, em: EntityManager = this.orm.em.fork()): Promise<ReturnTagRow[]> {
    return sql<ReturnTagRow>(em, `select ${TAG_COLUMNS} from return_tag t where t.store_id = $1 order by t.name collate "C"`, [storeId]);
  }

  async byName(em: EntityManager, storeId: string, name: string, lock = false): Promise<ReturnTagRow | null> {
    const [row] = await sql<ReturnTagRow>(em, `select ${TAG_COLUMNS} from return_tag t where t.store_id = $1 and t.name = $2${lock ? ' for update' : ''}`, [storeId, name]);
    return row ?? null;
  }
}
