import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Orm } from '../../platform/db/orm.js';
import type { AddressBody } from './order.schemas.js';
import { Conditions, keysetPage } from '../../platform/db/keyset.js';
import type { Page, PageRequest } from '../../platform/api/pagination.js';

/** Orders as stored (camelCase aliases from SQL), their column lists and the reads of whole orders (order.view.ts assembles the views). */


/** A customer's identifiers as orders hold them: a profile's email and phone, and those of profiles merged into it. */
export interface CustomerIdentifiers {
  emails: string[];
  phones: string[];
}

export interface Address {
  line1: string | null;
  line2: string | null;
  city: string | null;
  state: string | null;
  postalCode: string | null;
  country: string | null;
}

/** An address as stored: every line present, null when not given. */
export const addressOrNull = (address: AddressBody | null | undefined): Address | null =>
  address
    ? { line1: address.line1 ?? null, line2: address.line2 ?? null, city: address.city ?? null, state: address.state ?? null, postalCode: address.postalCode ?? null, country: address.country ?? null }
    : null;

/** What the real platform's orders API says of an order beyond the service's order (null when not given). */
export interface OrderApiFacts {
  customerExternalId: string | null;
  customerName: string | null;
  shippingMethod: string | null;
  billingAddress: Address | null;
  tags: string[] | null;
  totalPrice: string | null;
  subtotalPrice: string | null;
  totalTax: string | null;
  totalDiscount: string | null;
}

export interface OrderRow extends OrderApiFacts {
  id: string;
  storeId: string;
  compatId: string;
  provider: string;
  externalId: string;
  name: string;
  currency: string;
  customerEmail: string | null;
  customerPhone: string | null;
  customerFirstName: string | null;
  customerLastName: string | null;
  shippingCost: string;
  shippingAddress: Address | null;
  fulfillmentLocationId: string | null;
  createdAt: Date;
  updatedAt: Date;
  erasedAt: Date | null;
  /** Set on the order made for an imported return (no order of the store). */
  importedAt: Date | null;
}

export interface OrderLineRow {
  id: string;
  orderId: string;
  compatId: string;
  externalId: string;
  position: number;
  productId: string | null;
  variantId: string | null;
  sku: string | null;
  title: string | null;
  variantTitle: string | null;
  quantity: number;
  price: string;
  tax: string;
  discount: string;
  weightKg: string | null;
  imageUrl: string | null;
  /** The line's own discount as the orders API stated it, when the order's discount was spread over the lines. */
  statedDiscount: string | null;
  /** A barcode given for the line (imported returns), shown instead of the product's UPC. */
  upc: string | null;
}

export const ORDER_COLUMNS = `o.id, o.store_id as "storeId", o.compat_id::text as "compatId", o.provider, o.external_id as "externalId", o.name, o.currency,
  o.customer_email as "customerEmail", o.customer_phone as "customerPhone", o.customer_first_name as "customerFirstName",
  o.customer_last_name as "customerLastName", o.shipping_cost::text as "shippingCost", o.shipping_address as "shippingAddress",
  o.fulfillment_location_id as "fulfillmentLocationId", o.created_at as "createdAt", o.updated_at as "updatedAt", o.erased_at as "erasedAt",
  o.customer_external_id as "customerExternalId", o.customer_name as "customerName", o.shipping_method as "shippingMethod", o.billing_address as "billingAddress",
  o.tags, o.total_price::text as "totalPrice", o.subtotal_price::text as "subtotalPrice", o.total_tax::text as "totalTax", o.total_discount::text as "totalDiscount",
  o.imported_at as "importedAt"`;

export const LINE_COLUMNS = `l.id, l.order_id as "orderId", l.compat_id::text as "compatId", l.external_id as "externalId", l.position, l.product_id as "productId",
  l.variant_id as "variantId", l.sku, l.title, l.variant_title as "variantTitle", l.quantity, l.price::text as price,
  l.tax::text as tax, l.discount::text as discount, l.weight_kg::text as "weightKg", l.image_url as "imageUrl", l.stated_discount::text as "statedDiscount", l.upc`;

/** An order's visible lines as a JSON array (numerics as text). */
export const ORDER_LINES = `
  coalesce((select json_agg(json_build_object(
      'id', l.id, 'orderId', l.order_id, 'compatId', l.compat_id::text, 'externalId', l.external_id, 'position', l.position, 'productId', l.product_id,
      'variantId', l.variant_id, 'sku', l.sku, 'title', l.title, 'variantTitle', l.variant_title, 'quantity', l.quantity,
      'price', l.price::text, 'tax', l.tax::text, 'discount', l.discount::text, 'weightKg', l.weight_kg::text,
      'imageUrl', l.image_url, 'statedDiscount', l.stated_discount::text, 'upc', l.upc) order by l.position)
    from order_line_item l where l.order_id = o.id and l.removed_at is null), '[]') as lines`;

/** A whole order in one row: the order and its visible lines. */
export type WholeOrderRow = OrderRow & { lines: OrderLineRow[] };

/** Whole orders' rows by id (what the orders DataLoader batches) and a customer's orders. */
export class OrderReads {
  constructor(private readonly orm: Orm) {}

  async byIds(ids: readonly string[], em: EntityManager = this.orm.em.fork()): Promise<WholeOrderRow[]> {
    if (ids.length === 0) return [];
    // One round trip: each order with its lines aggregated.
    return sql<WholeOrderRow>(em, `select ${ORDER_COLUMNS}, ${ORDER_LINES} from "order" o where o.id = any($1)`, [ids]);
  }

  /** Orders whose customer has one of these emails (case-insensitive) or phones, newest first (a customer export). */
  listForCustomer(storeId: string, { emails, phones }: CustomerIdentifiers, page: PageRequest): Promise<Page<WholeOrderRow>> {
    const c = new Conditions();
    c.and(`o.store_id = ${c.p(storeId)}`).and(`(lower(o.customer_email) = any(${c.p(emails.map((e) => e.toLowerCase()), 'text[]')}) or o.customer_phone = any(${c.p(phones, 'text[]')}))`);
    return keysetPage<WholeOrderRow>(this.orm.em.fork(), { columns: `${ORDER_COLUMNS}, ${ORDER_LINES}`, from: '"order" o', where: c, sortColumn: 'o.created_at', idColumn: 'o.id', page });
  }
}
