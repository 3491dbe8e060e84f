import { Decimal } from '../../platform/money.js';
import { Currency, DateTime, Email, Int, Nullable, Num, Phone, Strict, Text, Type, type Static } from '../../platform/validation/index.js';
import type { Address, OrderApiFacts } from './order.rows.js';
import { spreadByValue } from './order.rules.js';

/**
 * The bodies of the real platform's orders API (`POST /stores/{storeId}/orders`), as its published
 * schema shapes them, and their conversion to the service's order: one order model whichever API an
 * order came through, so returns, fulfillments, webhooks and analytics read it the same way.
 *
 * The schema gives amounts as JSON numbers in the order's currency: each becomes an exact decimal
 * (at most 6 places, what the columns keep). Unknown properties are refused (400 with their
 * pointer), as on every body of this API: a misspelt field never vanishes silently.
 */

/** The largest amount `numeric(20, 6)` holds. */
const MAX_AMOUNT = 99_999_999_999_999;
const OptionalText = (max = 255) => Nullable(Text({ max }));
const AmountNumber = (description: string) => Nullable(Num({ min: 0, max: MAX_AMOUNT, description }));

const OrdersApiAddressSchema = Strict(
  {
    address1: OptionalText(500),
    address2: OptionalText(500),
    city: OptionalText(500),
    province: OptionalText(500),
    country: OptionalText(500),
    postalCode: OptionalText(500),
  },
  { description: 'A postal address; every line optional.' },
);
type OrdersApiAddress = Static<typeof OrdersApiAddressSchema>;

const OrdersApiLineSchema = Strict({
  id: Text({ description: 'The line item id: fulfillments and returns name the line by it.' }),
  productId: Text(),
  variantId: OptionalText(),
  title: Text({ max: 1000 }),
  sku: OptionalText(),
  quantity: Int({ min: 1, max: 1000 }),
  price: AmountNumber('Unit price before discounts, in the order currency (79.99, not 7999).'),
  imageUrl: OptionalText(2048),
  discount: AmountNumber("Discount of the whole line, in the order currency."),
});

export const CreateOrderSchema = Strict(
  {
    orderId: Text({ description: 'The order id on your platform: the same id again is 409.' }),
    createdAt: DateTime(),
    lineItems: Type.Array(OrdersApiLineSchema, { minItems: 1, maxItems: 1000, uniqueItemsBy: 'id' }),
    customer: Nullable(
      Strict({ id: OptionalText(), email: Nullable(Email()), phoneNumber: Nullable(Phone()), name: OptionalText(500), firstName: OptionalText(), lastName: OptionalText() }),
    ),
    shipping: Nullable(Strict({ method: OptionalText(500), cost: AmountNumber('Shipping cost.'), address: Nullable(OrdersApiAddressSchema) })),
    totalPrice: AmountNumber('Total including tax and shipping, as stated (kept as sent).'),
    subtotalPrice: AmountNumber('Subtotal excluding tax and shipping, as stated (kept as sent).'),
    totalTax: AmountNumber("The order's tax: shared over the lines by value (refunds give back each unit's share)."),
    totalDiscount: AmountNumber("The order's whole discount: what exceeds the lines' own discounts is shared over the lines by value."),
    billingAddress: Nullable(OrdersApiAddressSchema),
    tags: Nullable(Type.Array(Text(), { maxItems: 250 })),
    currencyCode: Nullable(Currency({ description: 'ISO 4217; USD when not given.' })),
    locationId: OptionalText(),
  },
  { title: 'CreateOrder' },
);
export type CreateOrderBody = Static<typeof CreateOrderSchema>;

const decimal = (n: number) => new Decimal(n).toDecimalPlaces(6, Decimal.ROUND_HALF_UP);

const addressOf = (a: OrdersApiAddress | null | undefined): Address | null =>
  a ? { line1: a.address1 ?? null, line2: a.address2 ?? null, city: a.city ?? null, state: a.province ?? null, postalCode: a.postalCode ?? null, country: a.country ?? null } : null;

/** An order as the service stores it, whichever API it came through (order.service.ts writes it). */
export interface StoredOrder {
  provider: string;
  externalId: string;
  name: string;
  currency: string;
  createdAt: string | null;
  customer: { email: string | null; phoneNumber: string | null; firstName: string | null; lastName: string | null; externalId?: string | null; name?: string | null };
  shippingCost: string;
  shippingAddress: Address | null;
  fulfillmentLocationId: string | null;
  /** The orders API's own facts (absent: an order from another body, which leaves them as they are). */
  api?: Omit<OrderApiFacts, 'customerExternalId' | 'customerName'>;
  lineItems: StoredLine[];
}

export interface StoredLine {
  externalId: string;
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
  imageUrl?: string | null;
  statedDiscount?: string | null;
  upc?: string | null;
}

/**
 * The orders API body as the service's order. The body has no per-line tax and an order-wide
 * discount: the tax, and whatever of the discount the lines do not already carry, are shared over
 * the lines by their value (after their own discounts), so a return refunds each unit's share.
 * The lines keep their stated discount apart, and the order its stated totals, to read back as sent.
 */
export function orderFromApi(body: CreateOrderBody): StoredOrder {
  const lines = body.lineItems.map((l) => ({ line: l, price: decimal(l.price ?? 0), discount: decimal(l.discount ?? 0) }));
  const values = lines.map((l) => l.price.times(l.line.quantity).minus(l.discount));
  const lineDiscounts = lines.reduce((acc, l) => acc.plus(l.discount), new Decimal(0));
  const orderDiscount = body.totalDiscount === null || body.totalDiscount === undefined ? new Decimal(0) : Decimal.max(decimal(body.totalDiscount).minus(lineDiscounts), 0);
  const discountShares = spreadByValue(orderDiscount, values);
  const taxShares = spreadByValue(body.totalTax === null || body.totalTax === undefined ? 0 : decimal(body.totalTax), values);
  const c = body.customer;
  const stated = (n: number | null | undefined) => (n === null || n === undefined ? null : decimal(n).toFixed());
  return {
    provider: 'custom',
    externalId: body.orderId,
    // The orders API names no order: it is shown (and found) by its id.
    name: body.orderId,
    currency: body.currencyCode ?? 'USD',
    createdAt: body.createdAt,
    customer: {
      email: c?.email ?? null,
      phoneNumber: c?.phoneNumber ?? null,
      firstName: c?.firstName ?? null,
      lastName: c?.lastName ?? null,
      externalId: c?.id ?? null,
      name: c?.name ?? null,
    },
    shippingCost: stated(body.shipping?.cost) ?? '0',
    shippingAddress: addressOf(body.shipping?.address),
    fulfillmentLocationId: body.locationId ?? null,
    api: {
      shippingMethod: body.shipping?.method ?? null,
      billingAddress: addressOf(body.billingAddress),
      tags: body.tags ?? null,
      totalPrice: stated(body.totalPrice),
      subtotalPrice: stated(body.subtotalPrice),
      totalTax: stated(body.totalTax),
      totalDiscount: stated(body.totalDiscount),
    },
    lineItems: lines.map((l, i) => ({
      externalId: l.line.id,
      productId: l.line.productId,
      variantId: l.line.variantId ?? null,
      sku: l.line.sku ?? null,
      title: l.line.title,
      variantTitle: null,
      quantity: l.line.quantity,
      price: l.price.toFixed(),
      tax: taxShares[i]!.toFixed(),
      discount: l.discount.plus(discountShares[i]!).toFixed(),
      weightKg: null,
      imageUrl: l.line.imageUrl ?? null,
      statedDiscount: l.discount.toFixed(),
    })),
  };
}
