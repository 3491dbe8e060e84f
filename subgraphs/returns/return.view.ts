import { Decimal, money, type Money } from '../../platform/money.js';
import { Int, MoneyDocument, OneOf, OrNull, Strict, Type, type Static } from '../../platform/validation/index.js';
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
  refundAmount: string;
  productValue: string;
  status: string;
  productId: string | null;
  variantId: string | null;
  sku: string | null;
  title: string | null;
  variantTitle: string | null;
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
  exchangeItem: null;
  grade: string | null;
  greenReturn: boolean;
  outcome: string;
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

export function itemView(row: ReturnItemRow, currency: string, storeId: string): ReturnItemView {
  return {
    id: row.id,
    orderItem: { id: row.orderLineItemId, lineItemId: row.lineExternalId, numericId: row.lineCompatId },
    line: { quantity: row.lineQuantity, price: row.linePrice, tax: row.lineTax, discount: row.lineDiscount },
    exact: { refund: row.refundAmount, productValue: row.productValue },
    quantity: row.quantity,
    reason: row.reason,
    customerComment: row.customerComment,
    exchangeItem: null,
    grade: null,
    greenReturn: false,
    outcome: row.compensation,
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
    upc: null,
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
    notes: [...(row.notes ? [{ message: row.notes, image: null }] : []), ...comments.map((c) => ({ message: c.message, image: null }))],
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
 * outbox events. GraphQL serves the same data with camelCase names. The
 * schemas below are what the API reference publishes; the builders are typed
 * by them, so a field added to one and not the other does not compile, and
 * the contract test checks every response the test suite reads against them.
 */
const Str = Type.String();
const NullableStr = OrNull(Type.String());
const Timestamp = Type.String({ format: 'date-time' });
const MoneySchema = MoneyDocument;
const AmountOf = Strict({ amount: MoneySchema });

export const RestAddressSchema = Strict(
  { line1: NullableStr, line2: NullableStr, city: NullableStr, state: NullableStr, postalCode: NullableStr, country: NullableStr },
  { title: 'Address' },
);

export const RestShipmentSchema = Strict(
  {
    carrier: NullableStr,
    status: Type.String({ description: 'The carrier status: label_created, pre_transit, in_transit, out_for_delivery, delivered, failure, returned_to_sender.' }),
    tracker: NullableStr,
    trackingUrl: NullableStr,
    postageLabel: NullableStr,
    formLabel: NullableStr,
    shipmentGroupId: NullableStr,
    itemIds: Type.Array(Str),
    externalLocationId: NullableStr,
    estimatedDeliveryDate: NullableStr,
    deliveredAt: NullableStr,
  },
  { title: 'Shipment' },
);

const ExchangeItemSchema = Strict({
  id: Str,
  quantity: Int(),
  variant: Strict({ name: NullableStr, externalId: NullableStr, sku: NullableStr, weight: Strict({ kg: OrNull(Type.Number()) }) }),
  originalPrice: MoneySchema,
  price: Strict({ amount: Str, currency: Str, tax: Str }),
  product: Strict({ name: NullableStr, externalId: NullableStr }),
});

export const RestReturnItemSchema = Strict(
  {
    id: Str,
    orderItem: Strict({ id: Type.String({ description: "The order line's service id." }), line_item_id: Type.String({ description: "The order line's external id." }) }),
    quantity: Int({ min: 1 }),
    reason: Str,
    customerComment: NullableStr,
    exchangeItem: OrNull(Strict({ product: Strict({ externalId: NullableStr, name: NullableStr }), quantity: Int(), variant: Strict({ externalId: NullableStr, name: NullableStr }) })),
    grade: NullableStr,
    greenReturn: Type.Boolean(),
    outcome: Type.String({ description: 'The compensation: refund, store_credit or exchange.' }),
    shipmentGroupIds: Type.Array(Str),
    externalReturnLineItemId: NullableStr,
    productId: NullableStr,
    reasonCode: NullableStr,
    reasons: Type.Array(Str),
    reasonCodes: Type.Array(Str),
    productAdjustment: NullableStr,
    multipleChoiceQuestions: Type.Array(Strict({ question: Str, answer: Str })),
    assessments: Type.Array(
      Strict({
        assignedUser: Strict({ id: Str, name: NullableStr, firstName: NullableStr, lastName: NullableStr, email: NullableStr }),
        responses: Type.Array(Strict({ type: Str, value: Str })),
      }),
    ),
    refund: Strict({ amount: MoneySchema, type: Str }),
    productValueNoTaxNoAdjustment: AmountOf,
    sku: NullableStr,
    upc: NullableStr,
    status: Str,
    variantId: NullableStr,
  },
  { title: 'ReturnItem' },
);

export const RestReturnSchema = Strict(
  {
    id: Str,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    status: OneOf(RETURN_STATUSES),
    type: Type.String({ description: 'return or warranty.' }),
    destination: Strict({ mailingAddress: OrNull(RestAddressSchema), phoneNumber: NullableStr }),
    source: Strict({ emailAddress: NullableStr, mailingAddress: OrNull(RestAddressSchema), name: Strict({ given: NullableStr, surname: NullableStr }), phoneNumber: NullableStr }),
    order: Strict({ id: Str, name: Str }),
    items: Type.Array(RestReturnItemSchema),
    giftCards: Type.Array(Strict({ amount: MoneySchema, code: Str, externalId: NullableStr })),
    compensationMethods: Type.Array(Str, { description: 'The set of the items\' compensations: refund, store_credit, exchange.' }),
    completeWithNoAction: Type.Boolean(),
    exchange: OrNull(
      Strict({ items: Type.Array(ExchangeItemSchema), provision: NullableStr, itemCount: Int(), order: Strict({ externalId: NullableStr }), totalTax: MoneySchema }),
    ),
    externalOrderIds: Type.Array(Str),
    externalReturnIds: Type.Array(Strict({ provider: Str, value: Str })),
    internalCreatedByName: NullableStr,
    notes: Type.Array(Strict({ message: Str, image: NullableStr })),
    shipment: OrNull(RestShipmentSchema),
    shipments: Type.Array(RestShipmentSchema),
    dropoffs: Type.Array(Strict({ shipmentGroupId: NullableStr, provider: NullableStr, qrCode: NullableStr, qrCodeUrl: NullableStr })),
    platformOrderIds: Type.Array(Str),
    tags: Type.Array(Strict({ name: Str, source: NullableStr })),
    totals: Strict({ charge: AmountOf, exchange: AmountOf, refund: AmountOf, storeCredit: AmountOf }),
  },
  { title: 'Return' },
);

export const RestOrderSchema = Strict(
  {
    id: Str,
    name: Str,
    externalId: Str,
    customer: Strict({ name: Strict({ given: NullableStr, surname: NullableStr }), emailAddress: NullableStr, phoneNumber: NullableStr }),
    discounts: MoneySchema,
    lineItemsTotal: MoneySchema,
    shippingCost: MoneySchema,
    taxes: MoneySchema,
    total: MoneySchema,
    items: Type.Array(
      Strict({
        fulfillmentLocationId: NullableStr,
        id: Str,
        price: MoneySchema,
        product: Strict({ name: NullableStr, externalId: NullableStr }),
        quantity: Int({ min: 1 }),
        variant: Strict({ name: NullableStr, externalId: NullableStr, sku: NullableStr, weight: Strict({ kg: OrNull(Type.Number()) }) }),
        externalId: Str,
      }),
    ),
  },
  { title: 'Order' },
);

/** A page of returns with the orders they belong to (`ReturnConnection.restJson`). */
export const RestReturnListSchema = Strict({ returns: Type.Array(RestReturnSchema), orders: Type.Array(RestOrderSchema) }, { title: 'ReturnList' });

export const RestCommentSchema = Strict({ id: Str, message: Str, createdAt: Timestamp }, { title: 'Comment' });

export type RestReturn = Static<typeof RestReturnSchema>;
export type RestOrder = Static<typeof RestOrderSchema>;
export type RestReturnList = Static<typeof RestReturnListSchema>;

export function restReturn(view: ReturnView): RestReturn {
  // Field by field, so nothing internal (ids of other kinds, sort keys) can leak into the public shape.
  return {
    id: view.id,
    createdAt: view.createdAt.toISOString(),
    updatedAt: view.updatedAt.toISOString(),
    status: view.status as ReturnStatus,
    type: view.type,
    destination: view.destination,
    source: view.source,
    order: view.orderSummary,
    items: view.items.map((item) => ({
      id: item.id,
      orderItem: { id: item.orderItem.id, line_item_id: item.orderItem.lineItemId },
      quantity: item.quantity,
      reason: item.reason,
      customerComment: item.customerComment,
      exchangeItem: item.exchangeItem,
      grade: item.grade,
      greenReturn: item.greenReturn,
      outcome: item.outcome,
      shipmentGroupIds: item.shipmentGroupIds,
      externalReturnLineItemId: item.externalReturnLineItemId,
      productId: item.productId,
      reasonCode: item.reasonCode,
      reasons: item.reasons,
      reasonCodes: item.reasonCodes,
      productAdjustment: item.productAdjustment,
      multipleChoiceQuestions: item.multipleChoiceQuestions,
      assessments: item.assessments,
      refund: item.refund,
      productValueNoTaxNoAdjustment: item.productValueNoTaxNoAdjustment,
      sku: item.sku,
      upc: item.upc,
      status: item.status,
      variantId: item.variantId,
    })),
    giftCards: view.giftCards,
    compensationMethods: view.compensationMethods,
    completeWithNoAction: view.completeWithNoAction,
    exchange: view.exchange,
    externalOrderIds: view.externalOrderIds,
    externalReturnIds: view.externalReturnIds,
    internalCreatedByName: view.internalCreatedByName,
    notes: view.notes,
    shipment: view.shipment,
    shipments: view.shipments,
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
    customer: view.customer,
    discounts: view.discounts,
    lineItemsTotal: view.lineItemsTotal,
    shippingCost: view.shippingCost,
    taxes: view.taxes,
    total: view.total,
    items: view.items.map((item) => ({
      fulfillmentLocationId: item.fulfillmentLocationId,
      id: item.id,
      price: item.price,
      product: item.product,
      quantity: item.quantity,
      variant: item.variant,
      externalId: item.externalId,
    })),
  };
}
