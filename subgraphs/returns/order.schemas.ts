import { Amount, Currency, DateTime, Email, Int, Nullable, Num, Phone, Strict, Text, Type, type Static } from '../../platform/validation/index.js';

/**
 * The order bodies as JSON Schemas: the custom order endpoint's body, which
 * GraphQL `upsertOrder` takes too (the order-sync body is in
 * order-sync.schemas.ts), and the address every part of a return uses. REST
 * and GraphQL clients are checked by the same definitions (decisions section
 * 7), and the API reference is generated from them.
 */

/** Text that may be empty or null. */
export const optionalText = (max: number) => Nullable(Text({ min: 0, max }));

export const AddressSchema = Strict(
  { line1: optionalText(500), line2: optionalText(500), city: optionalText(500), state: optionalText(500), postalCode: optionalText(500), country: optionalText(500) },
  { description: 'A postal address; every line optional.' },
);
export type AddressBody = Static<typeof AddressSchema>;

const OrderLineSchema = Strict({
  id: Text({ description: "The commerce platform's line item id (returns name it as lineItemId)." }),
  productId: optionalText(255),
  variantId: optionalText(255),
  sku: optionalText(255),
  title: optionalText(1000),
  variantTitle: optionalText(1000),
  quantity: Int({ min: 1 }),
  price: Amount({ description: 'Unit price.' }),
  tax: Nullable(Amount({ description: 'Tax of the whole line.' })),
  discount: Nullable(Amount({ description: 'Discount of the whole line.' })),
  // numeric(12, 4)
  weightKg: Nullable(Num({ min: 0, max: 99_999_999.9999 })),
});

/** The custom order body (decisions section 7): the order object itself. */
export const OrderBodySchema = Strict({
  id: Text({ description: 'External order id: the same id again updates the order.' }),
  name: Text({ description: 'e.g. "#1001"' }),
  createdAt: Nullable(DateTime()),
  currency: Currency(),
  customer: Strict({ email: Email(), firstName: optionalText(255), lastName: optionalText(255), phoneNumber: Nullable(Phone()) }),
  lineItems: Type.Array(OrderLineSchema, { minItems: 1, maxItems: 1000, uniqueItemsBy: 'id' }),
  shippingCost: Nullable(Amount()),
  shippingAddress: Nullable(AddressSchema),
  fulfillmentLocationId: optionalText(255),
});
export type OrderBody = Static<typeof OrderBodySchema>;

/** GraphQL `upsertOrder` takes the same object plus the commerce platform it comes from. */
export const UpsertOrderSchema = Type.Composite([
  OrderBodySchema,
  Type.Object({ provider: Type.Optional(Type.String({ pattern: '^[a-z0-9_-]{1,64}$', detail: 'must be a lowercase platform name such as shopify or custom' })) }),
], { additionalProperties: false });
