import type { EntityManager } from '@mikro-orm/postgresql';
import { BulkInsert } from '../../platform/db/bulk-insert.js';
import { sql, type Orm } from '../../platform/db/orm.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { check } from '../../platform/validation/index.js';
import { isOrderSync, orderFromSync, OrderSyncSchema } from './order-sync.schemas.js';
import { addressOrNull, type OrderLineRow, type OrderReads } from './order.rows.js';
import { UpsertOrderSchema, type OrderBody } from './order.schemas.js';
import { OrderViews, type OrderView } from './order.view.js';
import { unitsInReturns } from './return.rows.js';
import { keepsReturnedUnits } from './return.rules.js';

/** A validated line item: the stored row's fields but those the database assigns. */
type OrderLineInput = Omit<OrderLineRow, 'id' | 'orderId' | 'compatId' | 'position'>;

/** The upsert as stored: defaults filled in. */
interface OrderInput {
  provider: string;
  externalId: string;
  body: OrderBody;
  lineItems: OrderLineInput[];
}

function orderInput(body: OrderBody & { provider?: string }): OrderInput {
  const { provider = 'custom', ...order } = body;
  return {
    provider,
    externalId: order.id,
    body: order,
    lineItems: order.lineItems.map((l) => ({
      externalId: l.id,
      productId: l.productId ?? null,
      variantId: l.variantId ?? null,
      sku: l.sku ?? null,
      title: l.title ?? null,
      variantTitle: l.variantTitle ?? null,
      quantity: l.quantity,
      price: l.price,
      tax: l.tax ?? '0',
      discount: l.discount ?? '0',
      weightKg: l.weightKg === null || l.weightKg === undefined ? null : String(l.weightKg),
    })),
  };
}

/** The real platform's order-sync body as the service's order body (other bodies as they are). */
function fromSyncBody(raw: unknown): unknown {
  if (!isOrderSync(raw)) return raw;
  const { provider, ...sync } = raw as Record<string, unknown>;
  const order = orderFromSync(check(OrderSyncSchema, sync, { detail: 'The order is invalid.' }));
  return provider === undefined ? order : { ...order, provider };
}

/** Lines are upserted by external id: a line sent again keeps its id and comes back if it was hidden. */
const ORDER_LINES = new BulkInsert<{ line: OrderLineInput; position: number; orderId: string }>(
  'order_line_item',
  [
    { name: 'id', type: 'text', value: () => newId('orderItem') },
    { name: 'order_id', type: 'text', value: (r) => r.orderId },
    { name: 'external_id', type: 'text', value: (r) => r.line.externalId },
    { name: 'position', type: 'int', value: (r) => r.position },
    { name: 'product_id', type: 'text', value: (r) => r.line.productId },
    { name: 'variant_id', type: 'text', value: (r) => r.line.variantId },
    { name: 'sku', type: 'text', value: (r) => r.line.sku },
    { name: 'title', type: 'text', value: (r) => r.line.title },
    { name: 'variant_title', type: 'text', value: (r) => r.line.variantTitle },
    { name: 'quantity', type: 'int', value: (r) => r.line.quantity },
    { name: 'price', type: 'numeric', value: (r) => r.line.price },
    { name: 'tax', type: 'numeric', value: (r) => r.line.tax },
    { name: 'discount', type: 'numeric', value: (r) => r.line.discount },
    { name: 'weight_kg', type: 'numeric', value: (r) => r.line.weightKg },
  ],
  {
    tail: `on conflict (order_id, external_id) do update set position = excluded.position, product_id = excluded.product_id,
         variant_id = excluded.variant_id, sku = excluded.sku, title = excluded.title, variant_title = excluded.variant_title,
         quantity = excluded.quantity, price = excluded.price, tax = excluded.tax, discount = excluded.discount,
         weight_kg = excluded.weight_kg, removed_at = null`,
  },
);

/** Orders pushed in by commerce platforms; returns are made against their lines. */
export class OrderService {
  private readonly views: OrderViews;

  constructor(
    private readonly orm: Orm,
    reads: OrderReads,
  ) {
    this.views = new OrderViews(reads);
  }

  /**
   * Creates or updates an order by (store, provider, external id). An update
   * may not take away what returns already hold: a line with returned units
   * must stay, with at least that quantity (409 otherwise).
   */
  async upsert(storeId: string, raw: unknown): Promise<{ view: OrderView; created: boolean }> {
    const input = orderInput(check(UpsertOrderSchema, fromSyncBody(raw), { detail: 'The order is invalid.' }));
    const order = input.body;
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
          order.name,
          order.currency,
          order.customer.email,
          order.customer.phoneNumber ?? null,
          order.customer.firstName ?? null,
          order.customer.lastName ?? null,
          order.shippingCost ?? '0',
          order.shippingAddress ? JSON.stringify(addressOrNull(order.shippingAddress)) : null,
          order.fulfillmentLocationId ?? null,
          order.createdAt ?? null,
        ],
      );
      await this.syncLines(em, orderId, input);
      const [view] = await this.views.byIds([orderId], em);
      return { view: view!, created: !existing };
    });
  }

  private async checkReturnedLinesKept(em: EntityManager, orderId: string, input: OrderInput): Promise<void> {
    const incoming = new Map(input.lineItems.map((l) => [l.externalId, l.quantity]));
    for (const { externalId, units } of await unitsInReturns(em, orderId)) {
      if (!keepsReturnedUnits(incoming.get(externalId), units)) {
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
    await ORDER_LINES.run(em, lines.map((line, position) => ({ line, position, orderId })));
    await sql(em, `update order_line_item set removed_at = now() where order_id = $1 and removed_at is null and external_id <> all($2)`, [
      orderId,
      lines.map((l) => l.externalId),
    ]);
  }
}
