import { sql, type Orm } from '../../platform/db/orm.js';
import { inboundShipmentJson, inventoryItemJson } from './inventory.json.js';
import { inOrder, loadItems, loadShipments } from './inventory.views.js';

/** A store's inbound shipments as their REST documents, a page at a time in id order (a webhook backfill's read). */
export async function inboundShipmentDocumentsPage(orm: Orm, storeId: string, afterId: string | null, limit: number) {
  const em = orm.em.fork();
  const ids = (await sql<{ id: string }>(em, `select id from inbound_shipment where store_id = $1 and ($2::text is null or id > $2) order by id limit $3`, [storeId, afterId, limit])).map((r) => r.id);
  return inOrder(ids, await loadShipments(em, ids)).map((s) => ({ subjectId: s.id, data: { inbound_shipment: inboundShipmentJson(s) } }));
}

/** A store's inventory items as their REST documents, a page at a time in id order. */
export async function inventoryItemDocumentsPage(orm: Orm, storeId: string, afterId: string | null, limit: number) {
  const em = orm.em.fork();
  const ids = (await sql<{ id: string }>(em, `select id from inventory_item where store_id = $1 and ($2::text is null or id > $2) order by id limit $3`, [storeId, afterId, limit])).map((r) => r.id);
  return inOrder(ids, await loadItems(em, ids)).map((i) => ({ subjectId: i.id, data: { inventory_item: inventoryItemJson(i) } }));
}
