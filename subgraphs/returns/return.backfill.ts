import { sql, type Orm } from '../../platform/db/orm.js';
import { restOrder, type RestOrder } from './order.json.js';
import { restReturn, type RestReturn } from './return.json.js';
import { ReturnReads } from './return.rows.js';

/**
 * A store's returns as their current REST documents, a page at a time in id order (a webhook
 * backfill's read: the same documents the return events carry).
 */
export async function returnDocumentsPage(orm: Orm, storeId: string, afterId: string | null, limit: number): Promise<{ subjectId: string; data: { return: RestReturn; order: RestOrder } }[]> {
  const em = orm.em.fork();
  const ids = await sql<{ id: string }>(em, `select id from "return" where store_id = $1 and ($2::text is null or id > $2) order by id limit $3`, [storeId, afterId, limit]);
  const views = await new ReturnReads(orm).views(ids.map((r) => r.id), em);
  const byId = new Map(views.map((v) => [v.id, v]));
  return ids.map(({ id }) => {
    const view = byId.get(id)!;
    return { subjectId: id, data: { return: restReturn(view), order: restOrder(view.prefetchedOrder!) } };
  });
}
