import { Decimal, money, type Money } from '../../platform/money.js';
import { Int, MoneyDocument, Num, OneOf, OrNull, Strict, Type, type Static, type TSchema } from '../../platform/validation/index.js';
import { RETURN_STATUSES, type ReturnStatus } from './return.status.js';

/** The stored rows (camelCase aliases from SQL) and the views the API serves, built from them. */

export interface Address {
  line1: string | null;
  line2: string | null;
  city: string | null;
  state: string | null;
  postalCode: string | null;
  country: string | null;
}

export interface OrderRow {
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
}

export interface ReturnRow {
  id: string;
  storeId: string;
  compatId: string;
  orderId: string;
  orderName: string;
  externalOrderId: string;
  orderCompatId: string;
  status: string;
  type: string;
  provider: string;
  currency: string;
  source: ReturnSource;
  destination: ReturnDestination;
  notes: string | null;
  compensationMethods: string[];
  shipment: Shipment | null;
  shipments: Shipment[];
  shipmentRecorded: boolean;
  createdAt: Date;
  updatedAt: Date;
  closedAt: Date | null;
}

export interface ReturnItemRow {
  id: string;
  returnId: string;
  orderLineItemId: string;
  lineExternalId: string;
  quantity: number;
  reason: string;
  reasonCode: string | null;
  customerComment: string | null;
  compensation: string;
  /** The merchant's processing outcome: null until the return is processed. */
  outcome: string | null;
  /** An exchange for the same variant (`same_item_replacement`). */
  sameItemReplacement: boolean;
  /** Whether completion puts the item back in stock (processing may say not to). */
  restock?: boolean;
  refundAmount: string;
  productValue: string;
  status: string;
  productId: string | null;
  variantId: string | null;
  sku: string | null;
  title: string | null;
  variantTitle: string | null;
  /** The UPC of the store's product of this sku (inventory's `product.upserted` events, kept in `product_fact`). */
  upc?: string | null;
  /** The order line's own facts. */
  lineCompatId: string;
  lineQuantity: number;
  linePrice: string;
  lineTax: string;
  lineDiscount: string;
}

export interface CommentRow {
  id: string;
  compatId: string;
  returnId: string;
  message: string;
  /** A picture (base64) the comment carries instead of, or beside, its message. */
  image: string | null;
  createdAt: Date;
}

export interface ReturnSource {
  emailAddress: string | null;
  mailingAddress: Address | null;
  name: { given: string | null; surname: string | null };
  phoneNumber: string | null;
}

export interface ReturnDestination {
  mailingAddress: Address | null;
  phoneNumber: string | null;
}

export interface Shipment {
  carrier: string | null;
  status: string;
  tracker: string | null;
  trackingUrl: string | null;
  postageLabel: string | null;
  formLabel: string | null;
  shipmentGroupId: string | null;
  itemIds: string[];
  externalLocationId: string | null;
  estimatedDeliveryDate: string | null;
  deliveredAt: string | null;
}

export interface ExchangeItemView {
  product: { externalId: string | null; name: string };
  quantity: number;
  variant: { externalId: string | null; name: string };
}

export interface ReturnItemView {
  id: string;
  orderItem: { id: string; lineItemId: string; numericId: string };
  /** The order line this item returns units of: its quantity and its whole-line amounts. */
  line: { quantity: number; price: string; tax: string; discount: string };
  /** Exact decimals (as stored) of the refund and product value of the item's units. */
  exact: { refund: string; productValue: string };
  quantity: number;
  reason: string;
  customerComment: string | null;
  exchangeItem: ExchangeItemView | null;
  grade: string | null;
  greenReturn: boolean;
  /** refund, store_credit or exchange. */
  compensation: string;
  outcome: string | null;
  restock: boolean;
  shipmentGroupIds: string[];
  externalReturnLineItemId: string | null;
  productId: string | null;
  reasonCode: string | null;
  reasons: string[];
  reasonCodes: string[];
  productAdjustment: string | null;
  multipleChoiceQuestions: { question: string; answer: string }[];
  assessments: never[];
  refund: { amount: Money; type: string };
  productValueNoTaxNoAdjustment: { amount: Money };
  sku: string | null;
  upc: string | null;
  status: string;
  variantId: string | null;
  title: string | null;
  storeId: string;
}

export interface ReturnView {
  id: string;
  storeId: string;
  compatId: string;
  orderId: string;
  status: string;
  type: string;
  provider: string;
  currency: string;
  createdAt: Date;
  updatedAt: Date;
  closedAt: Date | null;
  destination: ReturnDestination;
  source: ReturnSource;
  orderSummary: { id: string; name: string };
  /** The order's numeric id and its id on its commerce platform. */
  orderNumericId: string;
  externalOrderId: string;
  items: ReturnItemView[];
  giftCards: never[];
  compensationMethods: string[];
  completeWithNoAction: boolean;
  exchange: null;
  externalOrderIds: string[];
  externalReturnIds: never[];
  internalCreatedByName: string | null;
  notes: { message: string; image: string | null }[];
  shipment: Shipment | null;
  shipments: Shipment[];
  shipmentRecorded: boolean;
  dropoffs: never[];
  platformOrderIds: string[];
  tags: never[];
  totals: { charge: { amount: Money }; exchange: { amount: Money }; refund: { amount: Money }; storeCredit: { amount: Money } };
  /** The order, when it was loaded with the return (saves `Return.order` a query). */
  prefetchedOrder?: OrderView;
}

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
  customer: { name: { given: string | null; surname: string | null }; emailAddress: string | null; phoneNumber: string | null };
  shippingAddress: Address | null;
  fulfillmentLocationId: string | null;
  discounts: Money;
  lineItemsTotal: Money;
  shippingCost: Money;
  taxes: Money;
  total: Money;
  items: OrderItemView[];
}

/** The product's display name: its title, else its sku (clients require a name). */
export const productName = (line: { title: string | null; sku: string | null }): string => line.title ?? line.sku ?? '';

/** A replacement of the same variant: what the customer gets back is what they send. */
function sameItemExchange(row: ReturnItemRow): ExchangeItemView {
  const name = productName(row);
  return { product: { externalId: row.productId, name }, quantity: row.quantity, variant: { externalId: row.variantId, name: row.variantTitle ?? name } };
}

export function itemView(row: ReturnItemRow, currency: string, storeId: string): ReturnItemView {
  return {
    id: row.id,
    orderItem: { id: row.orderLineItemId, lineItemId: row.lineExternalId, numericId: row.lineCompatId },
    line: { quantity: row.lineQuantity, price: row.linePrice, tax: row.lineTax, discount: row.lineDiscount },
    exact: { refund: row.refundAmount, productValue: row.productValue },
    quantity: row.quantity,
    reason: row.reason,
    customerComment: row.customerComment,
    exchangeItem: row.sameItemReplacement ? sameItemExchange(row) : null,
    grade: null,
    greenReturn: false,
    compensation: row.compensation,
    outcome: row.outcome,
    restock: row.restock ?? true,
    shipmentGroupIds: [],
    externalReturnLineItemId: null,
    productId: row.productId,
    reasonCode: row.reasonCode,
    reasons: [row.reason],
    reasonCodes: row.reasonCode ? [row.reasonCode] : [],
    productAdjustment: null,
    multipleChoiceQuestions: [],
    assessments: [],
    refund: { amount: money(row.refundAmount, currency), type: row.compensation },
    productValueNoTaxNoAdjustment: { amount: money(row.productValue, currency) },
    sku: row.sku,
    upc: row.upc ?? null,
    status: row.status,
    variantId: row.variantId,
    title: row.title,
    storeId,
  };
}

export function returnView(row: ReturnRow, items: ReturnItemRow[], comments: CommentRow[]): ReturnView {
  const sum = (compensation: string) =>
    items.filter((i) => i.compensation === compensation).reduce((acc, i) => acc.plus(i.refundAmount), new Decimal(0));
  const amount = (value: Decimal.Value) => ({ amount: money(value, row.currency) });
  return {
    id: row.id,
    storeId: row.storeId,
    compatId: row.compatId,
    orderId: row.orderId,
    status: row.status,
    type: row.type,
    provider: row.provider,
    currency: row.currency,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    closedAt: row.closedAt,
    destination: row.destination,
    source: row.source,
    orderSummary: { id: row.orderId, name: row.orderName },
    orderNumericId: row.orderCompatId,
    externalOrderId: row.externalOrderId,
    items: items.map((i) => itemView(i, row.currency, row.storeId)),
    giftCards: [],
    compensationMethods: row.compensationMethods,
    completeWithNoAction: false,
    exchange: null,
    externalOrderIds: [row.externalOrderId],
    externalReturnIds: [],
    internalCreatedByName: null,
    notes: [...(row.notes ? [{ message: row.notes, image: null }] : []), ...comments.map((c) => ({ message: c.message, image: c.image }))],
    shipment: row.shipment,
    shipments: row.shipments,
    shipmentRecorded: row.shipmentRecorded,
    dropoffs: [],
    platformOrderIds: [row.externalOrderId],
    tags: [],
    totals: { charge: amount(0), exchange: amount(sum('exchange')), refund: amount(sum('refund')), storeCredit: amount(sum('store_credit')) },
  };
}

export function orderView(row: OrderRow, lines: OrderLineRow[]): OrderView {
  const m = (value: Decimal.Value) => money(value, row.currency);
  const lineItemsTotal = lines.reduce((acc, l) => acc.plus(new Decimal(l.price).times(l.quantity)), new Decimal(0));
  const discounts = lines.reduce((acc, l) => acc.plus(l.discount), new Decimal(0));
  const taxes = lines.reduce((acc, l) => acc.plus(l.tax), new Decimal(0));
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
    customer: { name: { given: row.customerFirstName, surname: row.customerLastName }, emailAddress: row.customerEmail, phoneNumber: row.customerPhone },
    shippingAddress: row.shippingAddress,
    fulfillmentLocationId: row.fulfillmentLocationId,
    discounts: m(discounts),
    lineItemsTotal: m(lineItemsTotal),
    shippingCost: m(row.shippingCost),
    taxes: m(taxes),
    total: m(lineItemsTotal.minus(discounts).plus(taxes).plus(row.shippingCost)),
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
    })),
  };
}

/**
 * The REST shapes (service-spec "Return" and "Order"), also the payload of
 * outbox events and webhooks. GraphQL serves the same data with camelCase
 * names. The schemas below are what the API reference publishes; the
 * builders are typed by them, so a field added to one and not the other does
 * not compile, and the contract test checks every response the test suite
 * reads against them.
 *
 * They follow the real platform's published schema for API 2.2 (clients of
 * it validate responses with generated types): an optional field the service
 * knows nothing of is left out, never `null`; `null` only where that schema
 * allows it (an item's `grade`, `outcome`, `upc`; an order line's
 * `fulfillmentLocationId`; the protection's payer); and what it requires is
 * always there (names, the source's address and phone, `protection`).
 */
const Str = Type.String();
const Opt = <T extends TSchema>(schema: T) => Type.Optional(schema);
const OptStr = Opt(Str);
const NullableStr = OrNull(Type.String());
const Timestamp = Type.String({ format: 'date-time' });
const MoneySchema = MoneyDocument;
const AmountOf = Strict({ amount: MoneySchema });

export const RestAddressSchema = Strict(
  { line1: Str, line2: OptStr, city: Str, state: Str, postalCode: Str, country: Str },
  { title: 'Address', description: 'Lines the service does not know are empty strings (line2 is left out).' },
);

/** The carrier statuses a shipment shows (the real platform's names). */
export const REST_SHIPMENT_STATUSES = ['unknown', 'pre_transit', 'in_transit', 'out_for_delivery', 'available_for_pickup', 'cancelled', 'delivered', 'error', 'failure', 'return_to_sender', 'expired'] as const;

export const RestShipmentSchema = Strict(
  {
    carrier: OptStr,
    status: OneOf(REST_SHIPMENT_STATUSES, { description: 'label_created shows as pre_transit, returned_to_sender as return_to_sender.' }),
    tracker: OptStr,
    trackingUrl: OptStr,
    postageLabel: OptStr,
    formLabel: OptStr,
    shipmentGroupId: OptStr,
    itemIds: Type.Array(Str, { description: 'The ids of the return items the shipment carries.' }),
    externalLocationId: OptStr,
    estimatedDeliveryDate: OptStr,
    deliveredAt: OptStr,
  },
  { title: 'Shipment' },
);

const NamedProduct = Strict({ name: Str, externalId: OptStr });
const NamedVariant = Strict({ name: Type.String({ description: 'The variant title, else the product title.' }), externalId: OptStr, sku: OptStr, weight: Opt(Strict({ kg: Num({ min: 0 }) })) });

const ExchangeItemSchema = Strict({
  id: Str,
  quantity: Int({ min: 1 }),
  variant: NamedVariant,
  product: NamedProduct,
});

const ProtectionFlags = {
  covered: Type.Boolean(),
  returnsCoverage: Type.Boolean(),
  packageProtection: Type.Boolean(),
  finalSaleCoverage: Type.Boolean(),
};

export const RestReturnItemSchema = Strict(
  {
    id: Str,
    orderItem: Strict({ id: Type.String({ description: "The order line's service id." }), line_item_id: Type.String({ description: "The order line's external id." }) }),
    quantity: Int({ min: 1 }),
    reason: Str,
    customerComment: OptStr,
    exchangeItem: Opt(Strict({ product: Strict({ externalId: OptStr, name: Str }), quantity: Int(), variant: Strict({ externalId: OptStr, name: Str }) }, { description: 'The replacement (same_item_replacement: the same variant).' })),
    grade: NullableStr,
    greenReturn: Type.Boolean(),
    outcome: OrNull(Type.String({ description: "The merchant's processing outcome (null until the return is processed): the compensation given, or rejected." })),
    shipmentGroupIds: Type.Array(Str),
    externalReturnLineItemId: OptStr,
    productId: OptStr,
    reasonCode: OptStr,
    reasons: Type.Array(Str),
    reasonCodes: Type.Array(Str),
    productAdjustment: OptStr,
    multipleChoiceQuestions: Type.Array(Strict({ question: Str, answer: Str })),
    assessments: Type.Array(
      Strict({
        assignedUser: Strict({ id: Str, name: Str, firstName: Str, lastName: Str, email: Str }),
        responses: Type.Array(Strict({ type: Str, value: Str })),
      }),
    ),
    refund: Strict({ amount: MoneySchema, type: Type.String({ description: 'The compensation: refund, store_credit or exchange.' }) }),
    productValueNoTaxNoAdjustment: AmountOf,
    sku: OptStr,
    upc: NullableStr,
    status: Str,
    variantId: OptStr,
  },
  { title: 'ReturnItem' },
);

export const RestReturnSchema = Strict(
  {
    id: Str,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    status: OneOf(RETURN_STATUSES),
    type: Type.String({ description: 'return, warranty, claim, recycle or withdrawal.' }),
    destination: Strict({ mailingAddress: Opt(RestAddressSchema), phoneNumber: OptStr }),
    source: Strict({
      emailAddress: Type.String({ description: "The order's customer email." }),
      mailingAddress: RestAddressSchema,
      name: Strict({ given: Str, surname: Str }, { description: 'Empty strings when the order has no name.' }),
      phoneNumber: Type.String({ description: 'Empty when the order has no phone number.' }),
    }),
    order: Strict({ id: Str, name: Str }),
    items: Type.Array(RestReturnItemSchema),
    giftCards: Type.Array(Strict({ amount: MoneySchema, code: Str, externalId: Str })),
    compensationMethods: Type.Array(OneOf(['refund', 'store_credit', 'exchange'] as const), { description: "The set of the items' compensations." }),
    completeWithNoAction: Type.Boolean(),
    exchange: Opt(
      Strict(
        { items: Type.Array(ExchangeItemSchema), provision: OneOf(['instant', 'deferred'] as const), itemCount: Int({ min: 1 }) },
        { description: 'Present when items are exchanged for the same variant.' },
      ),
    ),
    externalOrderIds: Type.Array(Str),
    externalReturnIds: Type.Array(Strict({ provider: Str, value: Str })),
    internalCreatedByName: OptStr,
    notes: Type.Array(Strict({ message: Str, image: Opt(Type.String({ contentEncoding: 'base64' })) })),
    protection: Strict(
      {
        ...ProtectionFlags,
        labelPayer: OrNull(OneOf(['customer', 'merchant', 'redo'] as const)),
        labelPayerReason: NullableStr,
      },
      { description: 'The service sells no coverage: every flag false, no payer.' },
    ),
    shipment: Opt(RestShipmentSchema),
    shipments: Type.Array(RestShipmentSchema),
    dropoffs: Type.Array(Strict({ shipmentGroupId: Str, provider: Str, qrCode: OptStr, qrCodeUrl: OptStr })),
    platformOrderIds: Type.Array(Str),
    tags: Type.Array(Strict({ name: Str, source: Str })),
    totals: Strict({ charge: AmountOf, exchange: AmountOf, refund: AmountOf, storeCredit: AmountOf }),
  },
  { title: 'Return' },
);

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
        fulfillmentLocationId: NullableStr,
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

/** A page of returns with the orders they belong to (`ReturnConnection.restJson`). */
export const RestReturnListSchema = Strict({ returns: Type.Array(RestReturnSchema), orders: Type.Array(RestOrderSchema) }, { title: 'ReturnList' });

export const RestCommentSchema = Strict(
  { id: Str, message: Type.String({ description: 'Empty for a comment that carries only an image.' }), image: Opt(Type.String({ contentEncoding: 'base64' })), createdAt: Timestamp },
  { title: 'Comment' },
);

export type RestReturn = Static<typeof RestReturnSchema>;
export type RestOrder = Static<typeof RestOrderSchema>;
export type RestReturnList = Static<typeof RestReturnListSchema>;
type RestAddress = Static<typeof RestAddressSchema>;
type RestShipment = Static<typeof RestShipmentSchema>;

/** `undefined` (left out of the JSON) for what the service does not know. */
const known = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

function restAddress(address: Address): RestAddress {
  return {
    line1: address.line1 ?? '',
    line2: known(address.line2),
    city: address.city ?? '',
    state: address.state ?? '',
    postalCode: address.postalCode ?? '',
    country: address.country ?? '',
  };
}

const EMPTY_ADDRESS: Address = { line1: null, line2: null, city: null, state: null, postalCode: null, country: null };

const SHIPMENT_STATUS_NAMES: Record<string, RestShipment['status']> = { label_created: 'pre_transit', returned_to_sender: 'return_to_sender' };

function restShipment(shipment: Shipment, itemIds: string[]): RestShipment {
  return {
    carrier: known(shipment.carrier),
    status: SHIPMENT_STATUS_NAMES[shipment.status] ?? (shipment.status as RestShipment['status']),
    tracker: known(shipment.tracker),
    trackingUrl: known(shipment.trackingUrl),
    postageLabel: known(shipment.postageLabel),
    formLabel: known(shipment.formLabel),
    shipmentGroupId: known(shipment.shipmentGroupId),
    // A return ships as one parcel: a shipment carries every item still on the return.
    itemIds: shipment.itemIds?.length ? shipment.itemIds : itemIds,
    externalLocationId: known(shipment.externalLocationId),
    estimatedDeliveryDate: known(shipment.estimatedDeliveryDate),
    deliveredAt: known(shipment.deliveredAt),
  };
}

const NO_PROTECTION = { covered: false, returnsCoverage: false, packageProtection: false, finalSaleCoverage: false };

export function restReturn(view: ReturnView): RestReturn {
  // Field by field, so nothing internal (ids of other kinds, sort keys) can leak into the public shape.
  const itemIds = view.items.map((i) => i.id);
  const exchanged = view.items.filter((i) => i.exchangeItem);
  return {
    id: view.id,
    createdAt: view.createdAt.toISOString(),
    updatedAt: view.updatedAt.toISOString(),
    status: view.status as ReturnStatus,
    type: view.type,
    destination: {
      mailingAddress: view.destination.mailingAddress ? restAddress(view.destination.mailingAddress) : undefined,
      phoneNumber: known(view.destination.phoneNumber),
    },
    source: {
      emailAddress: view.source.emailAddress ?? '',
      mailingAddress: restAddress(view.source.mailingAddress ?? EMPTY_ADDRESS),
      name: { given: view.source.name.given ?? '', surname: view.source.name.surname ?? '' },
      phoneNumber: view.source.phoneNumber ?? '',
    },
    order: view.orderSummary,
    items: view.items.map((item) => ({
      id: item.id,
      orderItem: { id: item.orderItem.id, line_item_id: item.orderItem.lineItemId },
      quantity: item.quantity,
      reason: item.reason,
      customerComment: known(item.customerComment),
      exchangeItem: item.exchangeItem
        ? {
            product: { externalId: known(item.exchangeItem.product.externalId), name: item.exchangeItem.product.name },
            quantity: item.exchangeItem.quantity,
            variant: { externalId: known(item.exchangeItem.variant.externalId), name: item.exchangeItem.variant.name },
          }
        : undefined,
      grade: item.grade,
      greenReturn: item.greenReturn,
      outcome: item.outcome,
      shipmentGroupIds: item.shipmentGroupIds,
      externalReturnLineItemId: known(item.externalReturnLineItemId),
      productId: known(item.productId),
      reasonCode: known(item.reasonCode),
      reasons: item.reasons,
      reasonCodes: item.reasonCodes,
      productAdjustment: known(item.productAdjustment),
      multipleChoiceQuestions: item.multipleChoiceQuestions,
      assessments: item.assessments,
      refund: item.refund,
      productValueNoTaxNoAdjustment: item.productValueNoTaxNoAdjustment,
      sku: known(item.sku),
      upc: item.upc,
      status: item.status,
      variantId: known(item.variantId),
    })),
    giftCards: view.giftCards,
    compensationMethods: view.compensationMethods as RestReturn['compensationMethods'],
    completeWithNoAction: view.completeWithNoAction,
    exchange: exchanged.length
      ? {
          items: exchanged.map((i) => ({
            id: i.id,
            quantity: i.exchangeItem!.quantity,
            variant: { name: i.exchangeItem!.variant.name, externalId: known(i.exchangeItem!.variant.externalId), sku: known(i.sku) },
            product: { name: i.exchangeItem!.product.name, externalId: known(i.exchangeItem!.product.externalId) },
          })),
          provision: 'instant',
          itemCount: exchanged.reduce((n, i) => n + i.exchangeItem!.quantity, 0),
        }
      : undefined,
    externalOrderIds: view.externalOrderIds,
    externalReturnIds: view.externalReturnIds,
    internalCreatedByName: known(view.internalCreatedByName),
    notes: view.notes.map((n) => ({ message: n.message, image: known(n.image) })),
    protection: { ...NO_PROTECTION, labelPayer: null, labelPayerReason: null },
    shipment: view.shipment ? restShipment(view.shipment, itemIds) : undefined,
    shipments: view.shipments.map((s) => restShipment(s, itemIds)),
    dropoffs: view.dropoffs,
    platformOrderIds: view.platformOrderIds,
    tags: view.tags,
    totals: view.totals,
  };
}

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
