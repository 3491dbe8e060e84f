import { sql, type EntityManager } from '../../platform/db/orm.js';
import { RELEASED_STATUSES } from './return.status.js';

/**
 * Units of each line of an order that returns hold: active items of returns
 * that still count (every status but rejected and deleted). What is still
 * returnable is the ordered quantity minus this; an order update may not take
 * it away.
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
