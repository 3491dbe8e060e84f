import { Decimal } from '../../platform/money.js';
import {
  Amount,
  AnyJson,
  Currency,
  DateTime,
  Email,
  Int,
  Nullable,
  Num,
  Phone,
  Strict,
  Text,
  Type,
  Violations,
  type Static,
} from '../../platform/validation/index.js';
import type { OrderBody } from './order.schemas.js';

/**
 * The real platform's order-sync body (`type: "order"`, Shopify-like money
 * sets), accepted by the custom orders endpoint beside the contract's body
 * and turned into the same order (`OrderBody`): one internal model, the same
 * rules (currencies, E.164 phones, decimal amounts, unique line ids). Parts
 * the service keeps nothing of (fulfillments, transactions, refunds,
 * metafields, the billing address) are accepted and not stored.
 */
const optionalText = (max = 255) => Nullable(Text({ max }));

const MoneyOf = Strict({ amount: Amount(), currencyCode: Currency() });
const MoneySet = Strict({ presentmentMoney: MoneyOf, shopMoney: MoneyOf });
const DiscountSchema = Strict({ amountSet: MoneySet, discountId: Text(), discountTitle: Type.Optional(Text({ min: 0, max: 1000 })), discountCode: Type.Optional(Text({ min: 0, max: 255 })) });
const TaxLineSchema = Strict({ priceSet: MoneySet, rate: Type.Union([Type.String(), Type.Null()]), title: Type.Optional(Text({ min: 0, max: 255 })) });

/** Weight units as commerce platforms spell them, in kilograms. */
// A Map: the unit is the client's text, which may name an Object.prototype member (`constructor`).
const KG_PER_UNIT = new Map<string, number>(Object.entries({ g: 0.001, gram: 0.001, grams: 0.001, kg: 1, kilogram: 1, kilograms: 1, lb: 0.45359237, lbs: 0.45359237, pound: 0.45359237, pounds: 0.45359237, oz: 0.028349523125, ounce: 0.028349523125, ounces: 0.028349523125 }));

const SyncLineSchema = Strict({
  id: Text({ description: "The commerce platform's line item id (returns name it as lineItemId)." }),
  quantity: Int({ min: 1 }),
  priceSet: MoneySet,
  returnableQuantity: Nullable(Int({ min: 0 })),
  title: Text({ max: 1000 }),
  variantTitle: optionalText(1000),
  vendor: optionalText(),
  fulfillmentService: optionalText(),
  productId: Text(),
  variantId: optionalText(),
  additionalProductId: optionalText(),
  sku: Text({ min: 0 }),
  properties: Type.Optional(Type.Array(AnyJson(), { maxItems: 100 })),
  tags: Type.Optional(Type.Array(Text({ max: 255 }), { maxItems: 100 })),
  metafields: Type.Optional(Type.Array(AnyJson(), { maxItems: 100 })),
  weight: Nullable(Strict({ value: Num({ min: 0, max: 99_999_999 }), unit: Text({ max: 32 }) })),
  image: optionalText(2048),
  images: Type.Optional(Type.Array(AnyJson(), { maxItems: 100 })),
  discounts: Type.Optional(Type.Array(DiscountSchema, { maxItems: 100 })),
  taxLines: Type.Optional(Type.Array(TaxLineSchema, { maxItems: 100 })),
});

const SyncAddressSchema = Strict({
  address1: Text({ max: 500 }),
  address2: optionalText(500),
  city: Text({ max: 500 }),
  company: optionalText(500),
  firstName: optionalText(),
  lastName: optionalText(),
  provinceCode: Text({ min: 0, max: 500 }),
  zip: Text({ min: 0, max: 500 }),
  countryCode: Text({ max: 500 }),
  phone: optionalText(),
});

export const OrderSyncSchema = Strict(
  {
    id: Text({ description: 'External order id: the same id again updates the order.' }),
    type: Type.Literal('order'),
    name: Type.Optional(Text({ description: 'Not in the real platform\'s body: the order\'s display name (default: its id).' })),
    billingAddress: Type.Optional(AnyJson()),
    salesChannel: optionalText(),
    createdAt: DateTime(),
    presentmentCurrency: Currency(),
    shopCurrency: Currency(),
    customer: Strict({ email: Email(), phone: Nullable(Phone()), id: Type.Optional(Text()), firstName: Text({ min: 0 }), lastName: Text({ min: 0 }), tags: Type.Optional(Type.Array(Text(), { maxItems: 100 })) }),
    lineItems: Type.Array(SyncLineSchema, { minItems: 1, maxItems: 1000, uniqueItemsBy: 'id' }),
    orderDiscounts: Type.Array(DiscountSchema, { maxItems: 100 }),
    shippingLines: Type.Array(Strict({ id: Text(), title: Text({ min: 0, max: 500 }), code: Type.Optional(Text({ min: 0, max: 255 })), priceSet: MoneySet, discounts: Type.Optional(Type.Array(DiscountSchema, { maxItems: 100 })), taxLines: Type.Optional(Type.Array(TaxLineSchema, { maxItems: 100 })) }), { maxItems: 100 }),
    fulfillments: Type.Array(AnyJson(), { maxItems: 1000 }),
    shippingAddress: SyncAddressSchema,
    tags: Type.Optional(Type.Array(Text(), { maxItems: 250 })),
    metafields: Type.Optional(Type.Array(AnyJson(), { maxItems: 250 })),
    cancelledAt: Nullable(DateTime()),
    cancelReason: Type.Optional(AnyJson()),
    updatedAt: DateTime(),
    transactions: Type.Optional(Type.Array(AnyJson(), { maxItems: 1000 })),
    refunds: Type.Optional(Type.Array(AnyJson(), { maxItems: 1000 })),
  },
  { title: 'OrderSync', description: "The real platform's order-sync body: answered with {message, orderId, redoId}." },
);
export type OrderSync = Static<typeof OrderSyncSchema>;

/** Whether a body is the order-sync shape (its `type` says so); anything else is read as the contract's body. */
export const isOrderSync = (body: unknown): boolean => typeof body === 'object' && body !== null && (body as { type?: unknown }).type === 'order';

const sum = (values: Decimal.Value[]) => values.reduce<Decimal>((acc, v) => acc.plus(v), new Decimal(0));

/**
 * The order-sync body as the service's order. Money is read in the
 * presentment currency, which every amount must be in (400 otherwise). Line
 * amounts: unit price, tax lines and line discounts of the whole line; the
 * order's own discounts are spread over the lines by their value (the last
 * line takes the rounding), since the service keeps discounts per line.
 */
export function orderFromSync(sync: OrderSync): OrderBody {
  const currency = sync.presentmentCurrency;
  const wrongCurrency = new Violations();
  const amount = (set: Static<typeof MoneySet>, pointer: string): string => {
    if (set.presentmentMoney.currencyCode !== currency) wrongCurrency.add(`${pointer}/presentmentMoney/currencyCode`, `must be the presentmentCurrency ${currency}`);
    return set.presentmentMoney.amount;
  };
  const lines = sync.lineItems.map((line, i) => {
    const at = `/lineItems/${i}`;
    const unit = line.weight ? KG_PER_UNIT.get(line.weight.unit.toLowerCase()) : undefined;
    if (line.weight && unit === undefined) wrongCurrency.add(`${at}/weight/unit`, `must be one of ${[...KG_PER_UNIT.keys()].join(', ')}`);
    return {
      line,
      price: new Decimal(amount(line.priceSet, `${at}/priceSet`)),
      tax: sum((line.taxLines ?? []).map((t, j) => amount(t.priceSet, `${at}/taxLines/${j}/priceSet`))),
      discount: sum((line.discounts ?? []).map((d, j) => amount(d.amountSet, `${at}/discounts/${j}/amountSet`))),
      weightKg: line.weight && unit !== undefined ? Number((line.weight.value * unit).toFixed(4)) : null,
    };
  });
  const orderDiscount = sum(sync.orderDiscounts.map((d, i) => amount(d.amountSet, `/orderDiscounts/${i}/amountSet`)));
  const shipping = sync.shippingLines.map((s, i) => amount(s.priceSet, `/shippingLines/${i}/priceSet`));
  wrongCurrency.throwIfAny('The order is invalid.');

  const values = lines.map((l) => l.price.times(l.line.quantity).minus(l.discount));
  const total = sum(values);
  let left = orderDiscount;
  const shares = values.map((value, i) => {
    if (i === values.length - 1) return left;
    const share = total.isZero() ? new Decimal(0) : orderDiscount.times(value).dividedBy(total).toDecimalPlaces(6, Decimal.ROUND_DOWN);
    left = left.minus(share);
    return share;
  });
  const a = sync.shippingAddress;
  return {
    id: sync.id,
    name: sync.name ?? sync.id,
    createdAt: sync.createdAt,
    currency,
    customer: { email: sync.customer.email, firstName: sync.customer.firstName || null, lastName: sync.customer.lastName || null, phoneNumber: sync.customer.phone ?? null },
    lineItems: lines.map((l, i) => ({
      id: l.line.id,
      productId: l.line.productId,
      variantId: l.line.variantId ?? null,
      sku: l.line.sku || null,
      title: l.line.title,
      variantTitle: l.line.variantTitle ?? null,
      quantity: l.line.quantity,
      price: l.price.toFixed(),
      tax: l.tax.toFixed(),
      discount: l.discount.plus(shares[i]!).toFixed(),
      weightKg: l.weightKg,
    })),
    shippingCost: sum(shipping).toFixed(),
    shippingAddress: { line1: a.address1, line2: a.address2 ?? null, city: a.city, state: a.provinceCode || null, postalCode: a.zip || null, country: a.countryCode },
  };
}
