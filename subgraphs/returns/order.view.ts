import type { EntityManager } from '@mikro-orm/postgresql';
import { mapPage, type Page, type PageRequest } from '../../platform/api/pagination.js';
import { money, type Money } from '../../platform/money.js';
import type { Address, CustomerIdentifiers, OrderApiFacts, OrderLineRow, OrderReads, OrderRow, WholeOrderRow } from './order.rows.js';
import { orderTotals } from './order.rules.js';

/** An order as the API serves it, built from its row and its lines, and the loader of such views over order.rows.ts. */

export interface OrderItemView {
  id: string;
  numericId: string;
  externalId: string;
  fulfillmentLocationId: string | null;
  price: Money;
  product: { name: string | null; externalId: string | null };
  quantity: number;
  variant: { name: string | null; externalId: string | null; sku: string | null; weight: { kg: number | null } };
  tax: Money;
  discount: Money;
  imageUrl: string | null;
  /** As stored (exact decimals): the unit price, and the line's discount as stated (orders API) or as kept. */
  exact: { price: string; statedDiscount: string };
  upc: string | null;
}

export interface OrderView {
  id: string;
  storeId: string;
  compatId: string;
  provider: string;
  name: string;
  externalId: string;
  currency: string;
  createdAt: Date;
  updatedAt: Date;
  /** Set when the customer was erased: the order stays without the person (docs/privacy.md). */
  erasedAt: Date | null;
  customer: { name: { given: string | null; surname: string | null }; emailAddress: string | null; phoneNumber: string | null };
  shippingAddress: Address | null;
  fulfillmentLocationId: string | null;
  discounts: Money;
  lineItemsTotal: Money;
  shippingCost: Money;
  taxes: Money;
  total: Money;
  items: OrderItemView[];
  /** What the real platform's orders API says of the order beyond the rest (null when not given). */
  api: OrderApiFacts & { shippingCost: string };
  /** Set on the order made for an imported return: no order of the store. */
  importedAt: Date | null;
}

export function orderView(row: OrderRow, lines: OrderLineRow[]): OrderView {
  const m = (value: string) => money(value, row.currency);
  return {
    id: row.id,
    storeId: row.storeId,
    compatId: row.compatId,
    provider: row.provider,
    name: row.name,
    externalId: row.externalId,
    currency: row.currency,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    erasedAt: row.erasedAt,
    customer: { name: { given: row.customerFirstName, surname: row.customerLastName }, emailAddress: row.customerEmail, phoneNumber: row.customerPhone },
    shippingAddress: row.shippingAddress,
    fulfillmentLocationId: row.fulfillmentLocationId,
    ...orderTotals(lines, row.shippingCost, row.currency),
    items: lines.map((l) => ({
      id: l.id,
      numericId: l.compatId,
      externalId: l.externalId,
      fulfillmentLocationId: row.fulfillmentLocationId,
      price: m(l.price),
      product: { name: l.title, externalId: l.productId },
      quantity: l.quantity,
      variant: { name: l.variantTitle, externalId: l.variantId, sku: l.sku, weight: { kg: l.weightKg === null ? null : Number(l.weightKg) } },
      tax: m(l.tax),
      discount: m(l.discount),
      imageUrl: l.imageUrl ?? null,
      exact: { price: l.price, statedDiscount: l.statedDiscount ?? l.discount },
      upc: l.upc ?? null,
    })),
    api: {
      customerExternalId: row.customerExternalId ?? null,
      customerName: row.customerName ?? null,
      shippingMethod: row.shippingMethod ?? null,
      billingAddress: row.billingAddress ?? null,
      tags: row.tags ?? null,
      totalPrice: row.totalPrice ?? null,
      subtotalPrice: row.subtotalPrice ?? null,
      totalTax: row.totalTax ?? null,
      totalDiscount: row.totalDiscount ?? null,
      shippingCost: row.shippingCost,
    },
    importedAt: row.importedAt ?? null,
  };
}

const wholeOrderView = ({ lines, ...order }: WholeOrderRow): OrderView => orderView(order, lines);

/** Whole orders as views, read through the rows' reads. */
export class OrderViews {
  constructor(private readonly reads: OrderReads) {}

  /** Views of the given orders (one query whatever their number), in no particular order. */
  async byIds(ids: readonly string[], em?: EntityManager): Promise<OrderView[]> {
    return (await this.reads.byIds(ids, em)).map(wholeOrderView);
  }

  /** Orders whose customer has this email (case-insensitive) or phone, newest first (a customer export). */
  async listForCustomer(storeId: string, identifiers: CustomerIdentifiers, page: PageRequest): Promise<Page<OrderView>> {
    return mapPage(await this.reads.listForCustomer(storeId, identifiers, page), wholeOrderView);
  }
}
