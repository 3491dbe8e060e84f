import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Orm } from '../../platform/db/orm.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import type { OrderInput } from './order.validation.js';
import { ORDER_COLUMNS, ORDER_LINES } from './returns.sql.js';
import { orderView, type OrderLineRow, type OrderRow, type OrderView } from './return.view.js';
import { RELEASED_STATUSES } from './return.status.js';

/** Orders pushed in by commerce platforms; returns are made against their lines. */
export class OrderService {
  constructor(private readonly orm: Orm) {}

  async views(ids: readonly string[], em: EntityManager = this.orm.em.fork()): Promise<OrderView[]> {
    if (ids.length === 0) return [];
    // One round trip: each order with its lines aggregated.
    const orders = await sql<OrderRow & { lines: OrderLineRow[] }>(em, `select ${ORDER_COLUMNS}, ${ORDER_LINES} from "order" o where o.id = any($1)`, [ids]);
    return orders.map(({ lines, ...order }) => orderView(order, lines));
  }

  /**
   * Creates or updates an order by (store, provider, external id). An update
   * may not take away what returns already hold: a line with returned units
   * must stay, with at least that quantity (409 otherwise).
   */
  async upsert(storeId: string, input: OrderInput): Promise<{ view: OrderView; created: boolean }> {
    return this.orm.em.fork().transactional(async (em) => {
      // Serialise concurrent upserts of one order (and returns being created against it).
      const [existing] = await sql<{ id: string }>(
        em,
        `select id from "order" where store_id = $1 and provider = $2 and external_id = $3 for update`,
        [storeId, input.provider, input.externalId],
      );
      const orderId = existing?.id ?? newId('order');
      if (existing) await this.checkReturnedLinesKept(em, orderId, input);
      await sql(
        em,
        `insert into "order" (id, store_id, provider, external_id, name, currency, customer_email, customer_phone,
                              customer_first_name, customer_last_name, shipping_cost, shipping_address, fulfillment_location_id, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, coalesce($14, now()), now())
         on conflict (id) do update set name = excluded.name, currency = excluded.currency, customer_email = excluded.customer_email,
           customer_phone = excluded.customer_phone, customer_first_name = excluded.customer_first_name,
           customer_last_name = excluded.customer_last_name, shipping_cost = excluded.shipping_cost,
           shipping_address = excluded.shipping_address, fulfillment_location_id = excluded.fulfillment_location_id,
           created_at = coalesce($14, "order".created_at), updated_at = now()`,
        [
          orderId,
          storeId,
          input.provider,
          input.externalId,
          input.name,
          input.currency,
          input.customer.email,
          input.customer.phoneNumber,
          input.customer.firstName,
          input.customer.lastName,
          input.shippingCost,
          input.shippingAddress ? JSON.stringify(input.shippingAddress) : null,
          input.fulfillmentLocationId,
          input.createdAt,
        ],
      );
      await this.syncLines(em, orderId, input);
      const [view] = await this.views([orderId], em);
      return { view: view!, created: !existing };
    });
  }

  private async checkReturnedLinesKept(em: EntityManager, orderId: string, input: OrderInput): Promise<void> {
    const returned = await sql<{ externalId: string; returned: number }>(
      em,
      `select l.external_id as "externalId", sum(i.quantity)::int as returned
         from return_item i join return r on r.id = i.return_id join order_line_item l on l.id = i.order_line_item_id
        where l.order_id = $1 and i.status = 'active' and r.status <> all($2) group by l.external_id`,
      [orderId, RELEASED_STATUSES],
    );
    const incoming = new Map(input.lineItems.map((l) => [l.externalId, l.quantity]));
    for (const { externalId, returned: units } of returned) {
      const quantity = incoming.get(externalId);
      if (quantity === undefined || quantity < units) {
        throw new AppError(
          'conflict',
          'order-line-has-returns',
          `Line item ${externalId} has ${units} unit(s) in returns; it must stay on the order with a quantity of at least ${units}.`,
        );
      }
    }
  }

  /** Upserts lines by external id; lines no longer sent are hidden (returns may still point at them). */
  private async syncLines(em: EntityManager, orderId: string, input: OrderInput): Promise<void> {
    const lines = input.lineItems;
    await sql(
      em,
      `insert into order_line_item (id, order_id, external_id, position, product_id, variant_id, sku, title, variant_title, quantity, price, tax, discount, weight_kg)
       select * from unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::int[],
                            $11::numeric[], $12::numeric[], $13::numeric[], $14::numeric[])
       on conflict (order_id, external_id) do update set position = excluded.position, product_id = excluded.product_id,
         variant_id = excluded.variant_id, sku = excluded.sku, title = excluded.title, variant_title = excluded.variant_title,
         quantity = excluded.quantity, price = excluded.price, tax = excluded.tax, discount = excluded.discount,
         weight_kg = excluded.weight_kg, removed_at = null`,
      [
        lines.map(() => newId('orderItem')),
        lines.map(() => orderId),
        lines.map((l) => l.externalId),
        lines.map((_, i) => i),
        lines.map((l) => l.productId),
        lines.map((l) => l.variantId),
        lines.map((l) => l.sku),
        lines.map((l) => l.title),
        lines.map((l) => l.variantTitle),
        lines.map((l) => l.quantity),
        lines.map((l) => l.price),
        lines.map((l) => l.tax),
        lines.map((l) => l.discount),
        lines.map((l) => l.weightKg),
      ],
    );
    await sql(em, `update order_line_item set removed_at = now() where order_id = $1 and removed_at is null and external_id <> all($2)`, [
      orderId,
      lines.map((l) => l.externalId),
    ]);
  }
}
