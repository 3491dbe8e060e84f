import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../platform/db/orm.js';
import { outboxContract, publish } from '../../platform/jobs/outbox.js';
import { Strict, Type, type Static } from '../../platform/validation/index.js';
import type { FulfillmentReads } from './fulfillment.rows.js';
import { ordersApiOrder, OrdersApiOrderSchema } from './order-api.json.js';
import type { OrderView, OrderViews } from './order.view.js';

/**
 * The events of orders (version 1), for the `order` webhook topic: every committed change of an
 * order, whichever API made it (a create or update, a fulfillment and its tracking), and its
 * deletion. The payload is the order as the orders API reads it, fulfillments included.
 */
const OrderEventDataSchema = Strict({
  orderId: Type.String({ description: "The service's order id." }),
  order: OrdersApiOrderSchema,
});
export type OrderEventData = Static<typeof OrderEventDataSchema>;

export const OrderCreated = outboxContract('order.created', 'order', 1, OrderEventDataSchema);
/** Every committed change of an order: its fields and lines, a fulfillment created, a tracking update. */
export const OrderUpdated = outboxContract('order.updated', 'order', 1, OrderEventDataSchema);
/** The order as it was when it was deleted. */
export const OrderDeleted = outboxContract('order.deleted', 'order', 1, OrderEventDataSchema);

export const ORDER_EVENTS = [OrderCreated, OrderUpdated, OrderDeleted] as const;
type OrderContract = (typeof ORDER_EVENTS)[number];

/** Publishes orders' state in the caller's transaction; the made-up orders of imported returns publish nothing. */
export class OrderEvents {
  constructor(
    private readonly orders: OrderViews,
    private readonly fulfillments: FulfillmentReads,
  ) {}

  /** The order as the orders API reads it now, read in the transaction. */
  async document(em: EntityManager, orderId: string): Promise<{ view: OrderView; data: OrderEventData }> {
    const [view] = await this.orders.byIds([orderId], em);
    const fulfillments = (await this.fulfillments.forOrders([orderId], em)).get(orderId) ?? [];
    return { view: view!, data: { orderId, order: ordersApiOrder(view!, fulfillments) } };
  }

  /** Several orders' documents in two queries, in the order of `ids`. */
  async documents(em: EntityManager, ids: readonly string[]): Promise<{ subjectId: string; data: OrderEventData }[]> {
    const views = new Map((await this.orders.byIds(ids, em)).map((v) => [v.id, v]));
    const fulfillments = await this.fulfillments.forOrders(ids, em);
    return ids.flatMap((id) => {
      const view = views.get(id);
      return view ? [{ subjectId: id, data: { orderId: id, order: ordersApiOrder(view, fulfillments.get(id) ?? []) } }] : [];
    });
  }

  async emit(em: EntityManager, contract: OrderContract, orderId: string, known?: { view: OrderView; data: OrderEventData }): Promise<OrderEventData> {
    const { view, data } = known ?? (await this.document(em, orderId));
    if (view.importedAt === null) await publish(em, contract, [{ storeId: view.storeId, subjectId: orderId, data }]);
    return data;
  }
}

/**
 * A store's orders as their current documents, a page at a time in id order (a webhook backfill's
 * read: the documents the order events carry). The orders made for imported returns are none.
 */
export async function orderDocumentsPage(em: EntityManager, events: OrderEvents, storeId: string, afterId: string | null, limit: number): Promise<{ subjectId: string; data: OrderEventData }[]> {
  const ids = await sql<{ id: string }>(
    em,
    `select id from "order" where store_id = $1 and imported_at is null and ($2::text is null or id > $2) order by id limit $3`,
    [storeId, afterId, limit],
  );
  return events.documents(em, ids.map((r) => r.id));
}
