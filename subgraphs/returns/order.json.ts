import { Int, MoneyDocument, Num, OrNull, Strict, Type, type Static } from '../../platform/validation/index.js';
import type { OrderView } from './order.view.js';

/**
 * The REST document of an order (service-spec "Order"), shown beside its
 * returns and carried by return events; the same rules as the return's
 * document (return.json.ts): what the service does not know is left out.
 */
const Str = Type.String();
const OptStr = Type.Optional(Str);
const MoneySchema = MoneyDocument;

/** A product and a variant as documents name them (order lines, exchanged items). */
export const NamedProduct = Strict({ name: Str, externalId: OptStr });
export const NamedVariant = Strict({ name: Type.String({ description: 'The variant title, else the product title.' }), externalId: OptStr, sku: OptStr, weight: Type.Optional(Strict({ kg: Num({ min: 0 }) })) });

export const ProtectionFlags = {
  covered: Type.Boolean(),
  returnsCoverage: Type.Boolean(),
  packageProtection: Type.Boolean(),
  finalSaleCoverage: Type.Boolean(),
};

export const RestOrderSchema = Strict(
  {
    id: Str,
    name: Str,
    externalId: Str,
    customer: Strict({ name: Strict({ given: Str, surname: Str }), emailAddress: OptStr, phoneNumber: OptStr }),
    discounts: MoneySchema,
    lineItemsTotal: MoneySchema,
    protection: Strict(ProtectionFlags, { description: 'The service sells no coverage: every flag false.' }),
    shippingCost: MoneySchema,
    taxes: MoneySchema,
    total: MoneySchema,
    items: Type.Array(
      Strict({
        fulfillmentLocationId: OrNull(Type.String()),
        id: Str,
        price: MoneySchema,
        product: NamedProduct,
        quantity: Int({ min: 1 }),
        variant: NamedVariant,
        externalId: Str,
      }),
    ),
  },
  { title: 'Order' },
);


export type RestOrder = Static<typeof RestOrderSchema>;

/** `undefined` (left out of the JSON) for what the service does not know. */
export const known = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

/** The service sells no coverage. */
export const NO_PROTECTION = { covered: false, returnsCoverage: false, packageProtection: false, finalSaleCoverage: false };

export function restOrder(view: OrderView): RestOrder {
  return {
    id: view.id,
    name: view.name,
    externalId: view.externalId,
    customer: {
      name: { given: view.customer.name.given ?? '', surname: view.customer.name.surname ?? '' },
      emailAddress: known(view.customer.emailAddress),
      phoneNumber: known(view.customer.phoneNumber),
    },
    discounts: view.discounts,
    lineItemsTotal: view.lineItemsTotal,
    protection: NO_PROTECTION,
    shippingCost: view.shippingCost,
    taxes: view.taxes,
    total: view.total,
    items: view.items.map((item) => {
      const product = item.product.name ?? item.variant.sku ?? '';
      return {
        fulfillmentLocationId: item.fulfillmentLocationId,
        id: item.id,
        price: item.price,
        product: { name: product, externalId: known(item.product.externalId) },
        quantity: item.quantity,
        variant: {
          name: item.variant.name ?? product,
          externalId: known(item.variant.externalId),
          sku: known(item.variant.sku),
          weight: item.variant.weight.kg === null ? undefined : { kg: item.variant.weight.kg },
        },
        externalId: item.externalId,
      };
    }),
  };
}
