import type { EntityManager } from '@mikro-orm/postgresql';
import { BulkInsert } from '../../platform/db/bulk-insert.js';
import { sql, type Orm } from '../../platform/db/orm.js';
import { AppError, notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { check } from '../../platform/validation/index.js';
import { CreateOrderSchema, orderFromApi, type StoredLine, type StoredOrder } from './order-api.schemas.js';
import { OrderCreated, OrderDeleted, OrderUpdated, type OrderEventData, type OrderEvents } from './order.events.js';
import { isOrderSync, orderFromSync, OrderSyncSchema } from './order-sync.schemas.js';
import { addressOrNull } from './order.rows.js';
import { UpsertOrderSchema, type OrderBody } from './order.schemas.js';
import type { OrderView } from './order.view.js';
import { unitsInReturns } from './return.rows.js';
import { keepsReturnedUnits } from './return.rules.js';

/** The contract's order body (and GraphQL's, with its provider) as the stored order. */
function orderFromBody(body: OrderBody & { provider?: string }): StoredOrder {
  const { provider = 'custom', ...order } = body;
  return {
    provider,
    externalId: order.id,
    name: order.name,
    currency: order.currency,
    createdAt: order.createdAt ?? null,
    customer: { email: order.customer.email, phoneNumber: order.customer.phoneNumber ?? null, firstName: order.customer.firstName ?? null, lastName: order.customer.lastName ?? null },
    shippingCost: order.shippingCost ?? '0',
    shippingAddress: addressOrNull(order.shippingAddress),
    fulfillmentLocationId: order.fulfillmentLocationId ?? null,
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
const ORDER_LINES = new BulkInsert<{ line: StoredLine; position: number; orderId: string }>(
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
    { name: 'image_url', type: 'text', value: (r) => r.line.imageUrl ?? null },
    { name: 'stated_discount', type: 'numeric', value: (r) => r.line.statedDiscount ?? null },
    { name: 'upc', type: 'text', value: (r) => r.line.upc ?? null },
  ],
  {
    tail: `on conflict (order_id, external_id) do update set position = excluded.position, product_id = excluded.product_id,
         variant_id = excluded.variant_id, sku = excluded.sku, title = excluded.title, variant_title = excluded.variant_title,
         quantity = excluded.quantity, price = excluded.price, tax = excluded.tax, discount = excluded.discount,
         weight_kg = excluded.weight_kg, image_url = excluded.image_url, stated_discount = excluded.stated_discount, upc = excluded.upc, removed_at = null`,
  },
);

/**
 * How an order is named in the orders API's paths: its service id, its external id (the
 * `orderId` it was created with), or, where the operation allows it, its name (`#1001`).
 * The orders made for imported returns are no orders of the store: never found this way.
 */
export async function findOrder(em: EntityManager, storeId: string, reference: string, options: { byName: boolean; lock?: boolean }): Promise<string | null> {
  const lock = options.lock ? ' for update' : '';
  const pick = async (where: string) =>
    (await sql<{ id: string }>(em, `select id from "order" where store_id = $1 and imported_at is null and ${where} order by provider = 'custom' desc, created_at desc, id desc limit 1${lock}`, [storeId, reference]))[0]?.id ?? null;
  return (await pick('id = $2')) ?? (await pick('external_id = $2')) ?? (options.byName ? await pick('name = $2') : null);
}

export const orderNotFound = (reference: string) => notFound('order-not-found', `No order ${reference} in this store.`);

/** Orders pushed in by commerce platforms; returns are made against their lines. */
export class OrderService {
  constructor(
    private readonly orm: Orm,
    private readonly events: OrderEvents,
  ) {}

  /**
   * Creates or updates an order by (store, provider, external id). An update
   * may not take away what returns already hold: a line with returned units
   * must stay, with at least that quantity (409 otherwise).
   */
  async upsert(storeId: string, raw: unknown): Promise<{ view: OrderView; created: boolean }> {
    const input = orderFromBody(check(UpsertOrderSchema, fromSyncBody(raw), { detail: 'The order is invalid.' }));
    return this.orm.em.fork().transactional(async (em) => {
      // Serialise concurrent upserts of one order (and returns being created against it).
      const [existing] = await sql<{ id: string }>(
        em,
        `select id from "order" where store_id = $1 and provider = $2 and external_id = $3 for update`,
        [storeId, input.provider, input.externalId],
      );
      const orderId = existing?.id ?? newId('order');
      if (existing) await this.checkReturnedLinesKept(em, orderId, input);
      await this.write(em, storeId, orderId, input);
      const document = await this.events.document(em, orderId);
      await this.events.emit(em, existing ? OrderUpdated : OrderCreated, orderId, document);
      return { view: document.view, created: !existing };
    });
  }

  /** The orders API's create: a new order (provider custom); an order with the same id already there is 409. */
  async create(storeId: string, raw: unknown): Promise<OrderView> {
    const input = orderFromApi(check(CreateOrderSchema, raw, { detail: 'The order is invalid.' }));
    return this.orm.em.fork().transactional(async (em) => {
      const orderId = newId('order');
      const claimed = await sql<{ id: string }>(
        em,
        `insert into "order" (id, store_id, provider, external_id, name, currency) values ($1, $2, $3, $4, $5, $6)
         on conflict (store_id, provider, external_id) do nothing returning id`,
        [orderId, storeId, input.provider, input.externalId, input.name, input.currency],
      );
      if (!claimed.length) throw new AppError('conflict', 'order-exists', `The store already has an order ${input.externalId}.`);
      await this.write(em, storeId, orderId, input);
      const document = await this.events.document(em, orderId);
      await this.events.emit(em, OrderCreated, orderId, document);
      return document.view;
    });
  }

  /** The id of the order a reference names (service id, external id, or name), or null. */
  find(storeId: string, reference: string): Promise<string | null> {
    return findOrder(this.orm.em.fork(), storeId, reference, { byName: true });
  }

  /** The order a reference names (service id, external id, or name), as the orders API reads it. */
  async read(storeId: string, reference: string): Promise<OrderEventData> {
    const em = this.orm.em.fork();
    const orderId = await findOrder(em, storeId, reference, { byName: true });
    if (!orderId) throw orderNotFound(reference);
    return (await this.events.document(em, orderId)).data;
  }

  /**
   * Deletes an order with its lines and fulfillments. An order that returns were made against
   * stays (409): a return is a financial record and names its order's lines.
   */
  async remove(storeId: string, reference: string): Promise<OrderEventData> {
    return this.orm.em.fork().transactional(async (em) => {
      const orderId = await findOrder(em, storeId, reference, { byName: false, lock: true });
      if (!orderId) throw orderNotFound(reference);
      const [held] = await sql<{ n: number }>(em, 'select count(*)::int as n from return where order_id = $1', [orderId]);
      if (held!.n > 0) throw new AppError('conflict', 'order-has-returns', `Order ${reference} has ${held!.n} return(s); an order with returns is kept.`);
      const document = await this.events.document(em, orderId);
      // Children first: the analytics triggers of order lines read their order.
      await sql(em, 'delete from fulfillment_event e using fulfillment f where e.fulfillment_id = f.id and f.order_id = $1', [orderId]);
      await sql(em, 'delete from fulfillment_line fl using fulfillment f where fl.fulfillment_id = f.id and f.order_id = $1', [orderId]);
      await sql(em, 'delete from fulfillment where order_id = $1', [orderId]);
      await sql(em, 'delete from order_line_item where order_id = $1', [orderId]);
      await sql(em, 'delete from "order" where id = $1', [orderId]);
      await this.events.emit(em, OrderDeleted, orderId, document);
      return document.data;
    });
  }

  private async checkReturnedLinesKept(em: EntityManager, orderId: string, input: StoredOrder): Promise<void> {
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

  /**
   * Writes an order's fields and lines. An order from a body without the orders API's own facts
   * (`api` absent) keeps those it has, but its stated totals, which its new lines may contradict.
   */
  async write(em: EntityManager, storeId: string, orderId: string, input: StoredOrder, importedAt: Date | null = null): Promise<void> {
    const api = input.api;
    await sql(
      em,
      `insert into "order" (id, store_id, provider, external_id, name, currency, customer_email, customer_phone,
                            customer_first_name, customer_last_name, shipping_cost, shipping_address, fulfillment_location_id, created_at, updated_at,
                            customer_external_id, customer_name, shipping_method, billing_address, tags, total_price, subtotal_price, total_tax, total_discount, imported_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, coalesce($14, now()), now(), $15, $16, $17, $18, $19, $20, $21, $22, $23, $24)
       on conflict (id) do update set name = excluded.name, currency = excluded.currency, customer_email = excluded.customer_email,
         customer_phone = excluded.customer_phone, customer_first_name = excluded.customer_first_name,
         customer_last_name = excluded.customer_last_name, shipping_cost = excluded.shipping_cost,
         shipping_address = excluded.shipping_address, fulfillment_location_id = excluded.fulfillment_location_id,
         created_at = coalesce($14, "order".created_at), updated_at = now(),
         customer_external_id = case when $25 then excluded.customer_external_id else "order".customer_external_id end,
         customer_name = case when $25 then excluded.customer_name else "order".customer_name end,
         shipping_method = case when $25 then excluded.shipping_method else "order".shipping_method end,
         billing_address = case when $25 then excluded.billing_address else "order".billing_address end,
         tags = case when $25 then excluded.tags else "order".tags end,
         total_price = excluded.total_price, subtotal_price = excluded.subtotal_price, total_tax = excluded.total_tax, total_discount = excluded.total_discount`,
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
        input.customer.externalId ?? null,
        input.customer.name ?? null,
        api?.shippingMethod ?? null,
        api?.billingAddress ? JSON.stringify(api.billingAddress) : null,
        api?.tags ?? null,
        api?.totalPrice ?? null,
        api?.subtotalPrice ?? null,
        api?.totalTax ?? null,
        api?.totalDiscount ?? null,
        importedAt,
        api !== undefined,
      ],
    );
    await this.syncLines(em, orderId, input.lineItems);
  }

  /** Upserts lines by external id; lines no longer sent are hidden (returns may still point at them). */
  private async syncLines(em: EntityManager, orderId: string, lines: readonly StoredLine[]): Promise<void> {
    await ORDER_LINES.run(em, lines.map((line, position) => ({ line, position, orderId })));
    await sql(em, `update order_line_item set removed_at = now() where order_id = $1 and removed_at is null and external_id <> all($2)`, [
      orderId,
      lines.map((l) => l.externalId),
    ]);
  }
}
