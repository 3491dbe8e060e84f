import type { Orm } from '../../platform/db/orm.js';
import { Int, MoneyDocument, OneOf, OrNull, Strict, Type, type Static, type TSchema } from '../../platform/validation/index.js';
import { known, NamedProduct, NamedVariant, NO_PROTECTION, ProtectionFlags, restOrder, RestOrderSchema, type RestOrder } from './order.json.js';
import type { Address } from './order.rows.js';
import { returnIdsAfter, ReturnReads, type Shipment } from './return.rows.js';
import { RETURN_STATUSES, type ReturnStatus } from './return.rules.js';
import { ReturnViews, type ReturnView } from './return.view.js';

/**
 * The REST document of a return (service-spec "Return"; its order's is in
 * order.json.ts), also the payload of outbox events and webhooks. GraphQL serves the same data with camelCase
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

const RestAddressSchema = Strict(
  { line1: Str, line2: OptStr, city: Str, state: Str, postalCode: Str, country: Str },
  { title: 'Address', description: 'Lines the service does not know are empty strings (line2 is left out).' },
);

/** The carrier statuses a shipment shows (the real platform's names). */
const REST_SHIPMENT_STATUSES = ['unknown', 'pre_transit', 'in_transit', 'out_for_delivery', 'available_for_pickup', 'cancelled', 'delivered', 'error', 'failure', 'return_to_sender', 'expired'] as const;

const RestShipmentSchema = Strict(
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

const ExchangeItemSchema = Strict({
  id: Str,
  quantity: Int({ min: 1 }),
  variant: NamedVariant,
  product: NamedProduct,
});


const RestReturnItemSchema = Strict(
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

/** A page of returns with the orders they belong to (`ReturnConnection.restJson`). */
export const RestReturnListSchema = Strict({ returns: Type.Array(RestReturnSchema), orders: Type.Array(RestOrderSchema) }, { title: 'ReturnList' });

export const RestCommentSchema = Strict(
  { id: Str, message: Type.String({ description: 'Empty for a comment that carries only an image.' }), image: Opt(Type.String({ contentEncoding: 'base64' })), createdAt: Timestamp },
  { title: 'Comment' },
);

export type RestReturn = Static<typeof RestReturnSchema>;
export type RestReturnList = Static<typeof RestReturnListSchema>;
type RestAddress = Static<typeof RestAddressSchema>;
type RestShipment = Static<typeof RestShipmentSchema>;

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

/**
 * A store's returns as their current REST documents, a page at a time in id order (a webhook
 * backfill's read: the same documents the return events carry).
 */
export async function returnDocumentsPage(orm: Orm, storeId: string, afterId: string | null, limit: number): Promise<{ subjectId: string; data: { return: RestReturn; order: RestOrder } }[]> {
  const em = orm.em.fork();
  const ids = await returnIdsAfter(em, storeId, afterId, limit);
  const views = await new ReturnViews(new ReturnReads(orm)).byIds(ids, em);
  const byId = new Map(views.map((v) => [v.id, v]));
  return ids.map((id) => {
    const view = byId.get(id)!;
    return { subjectId: id, data: { return: restReturn(view), order: restOrder(view.prefetchedOrder!) } };
  });
}
