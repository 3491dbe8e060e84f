import { CalendarDate, DateTime, Email, Int, Nullable, OneOf, Strict, Text, TimeBound, Type, type Static } from '../../platform/validation/index.js';
import { AddressSchema, optionalText } from './order.schemas.js';
import { RETURN_STATUSES, REST_STATUS_TARGETS, SHIPMENT_STATUSES } from './return.rules.js';

/**
 * The inputs of returns as JSON Schemas: the REST bodies the facade passes
 * through and the GraphQL inputs. REST and GraphQL clients are checked by the
 * same definitions (decisions section 8), and the API reference is generated
 * from them.
 */

const COMPENSATIONS = ['refund', 'store_credit', 'exchange'] as const;
/** What a return item may ask for: a compensation, or `same_item_replacement` (an exchange for the same variant). */
const REQUESTED_COMPENSATIONS = [...COMPENSATIONS, 'same_item_replacement'] as const;
/** The return types of the real platform's API 2.2. */
export const RETURN_TYPES = ['return', 'warranty', 'claim', 'recycle', 'withdrawal'] as const;

const ReturnItemSchema = Strict({
  lineItemId: Text({ description: "The order line's external id (lineItems[].id of the order)." }),
  quantity: Int({ min: 1 }),
  reason: Text({ max: 1000 }),
  reasonCode: optionalText(255),
  notes: optionalText(5000),
  compensation: Type.Optional(OneOf(REQUESTED_COMPENSATIONS, { description: 'Default refund. same_item_replacement is an exchange for the same variant.' })),
});

/** A label the return already has: it becomes the return's first shipment. */
const ReturnLabelSchema = Strict({
  trackingNumber: Text(),
  carrier: optionalText(255),
  trackingUrl: optionalText(2000),
  postageLabelUrl: optionalText(2000),
  formLabelUrl: optionalText(2000),
  originalShipmentId: optionalText(255),
});

/** The create-return body (decisions section 8). */
export const CreateReturnSchema = Strict({
  data: Strict({
    provider: Text({ max: 64, description: 'The commerce platform of the order (custom for orders pushed to this API).' }),
    externalOrderId: Text(),
    items: Type.Array(ReturnItemSchema, { minItems: 1, maxItems: 500, uniqueItemsBy: 'lineItemId' }),
    shippingAddress: Nullable(AddressSchema),
    label: Type.Optional(ReturnLabelSchema),
    notes: optionalText(5000),
    type: Type.Optional(OneOf(RETURN_TYPES, { description: 'Default return.' })),
  }),
  options: Type.Optional(Strict({ createExternalRMAs: Type.Optional(Type.Boolean()) })),
});
export type CreateReturnBody = Static<typeof CreateReturnSchema>;

/** The filters of a store's return list, as GraphQL takes them (REST names them in snake_case). */
export const ReturnFilterSchema = Strict({
  status: Nullable(OneOf(RETURN_STATUSES)),
  type: Nullable(OneOf(RETURN_TYPES)),
  updatedAtMin: Nullable(TimeBound({ description: 'Inclusive.' })),
  updatedAtMax: Nullable(TimeBound({ description: 'Exclusive.' })),
  createdAtMin: Nullable(TimeBound({ description: 'Inclusive.' })),
  createdAtMax: Nullable(TimeBound({ description: 'Exclusive.' })),
  providerOrderName: optionalText(255),
  email: Nullable(Email({ description: "The order customer's email, any case." })),
  tag: Nullable(Text({ max: 100, description: 'Returns carrying this tag (case-sensitive).' })),
  imported: Nullable(Type.Boolean({ description: 'true: imported returns only; false: returns made here only.' })),
});
export type ReturnFilter = Static<typeof ReturnFilterSchema>;

/** `GET /stores/{storeId}/returns` query parameters; `shopify_order_name` is an alias of `provider_order_name`. */
export const ReturnListQuerySchema = Strict({
  status: Type.Optional(OneOf(RETURN_STATUSES)),
  type: Type.Optional(OneOf(RETURN_TYPES)),
  updated_at_min: Type.Optional(TimeBound({ description: 'Inclusive; a date is its UTC midnight.' })),
  updated_at_max: Type.Optional(TimeBound({ description: 'Exclusive.' })),
  created_at_min: Type.Optional(TimeBound({ description: 'Inclusive.' })),
  created_at_max: Type.Optional(TimeBound({ description: 'Exclusive.' })),
  provider_order_name: Type.Optional(Text({ description: "The order's name, e.g. #1001." })),
  shopify_order_name: Type.Optional(Text({ description: 'Alias of provider_order_name.' })),
  email: Type.Optional(Email({ description: "Returns of orders whose customer has this email (any case), as the real platform filters." })),
});

/** `PUT /returns/{returnId}/status`. */
export const StatusBodySchema = Strict({ status: OneOf(REST_STATUS_TARGETS) });

/** A picture as base64 text (at most 3 MB of image). */
const CommentImageSchema = Type.String({
  minLength: 4,
  maxLength: 4 * 1024 * 1024,
  pattern: '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$',
  contentEncoding: 'base64',
  detail: 'must be base64 text',
});
const CommentMessageSchema = Text({ max: 5000 });

/** `POST /returns/{returnId}/comments`: a message or an image (base64), as the real platform's clients send. */
export const CommentBodySchema = Strict({
  comment: Type.Union([Strict({ message: CommentMessageSchema }), Strict({ image: CommentImageSchema })], {
    description: 'Either {message} or {image} (base64).',
    detail: 'must be {message} (1 to 5000 characters) or {image} (base64 text)',
  }),
});
/** What a comment carries: a message, an image or both (GraphQL). */
export const CommentContentSchema = Type.Union(
  [Strict({ message: CommentMessageSchema, image: Type.Optional(CommentImageSchema) }), Strict({ image: CommentImageSchema })],
  { detail: 'must carry a message (1 to 5000 characters), an image (base64 text), or both' },
);

/** GraphQL `recordReturnShipmentEvent` input. */
export const ShipmentEventSchema = Strict({
  status: OneOf(SHIPMENT_STATUSES),
  carrier: optionalText(255),
  trackingNumber: optionalText(255),
  trackingUrl: optionalText(2000),
  estimatedDeliveryDate: Nullable(CalendarDate()),
  deliveredAt: Nullable(DateTime()),
});

export type ShipmentEvent = Static<typeof ShipmentEventSchema>;

/** A numeric id (orders, returns, order lines and comments each have one, allocated once). */
const NumericId = (a: { description?: string } = {}) => Type.String({ pattern: '^[1-9][0-9]{0,17}$', detail: 'must be a positive whole number', ...a });

/** How a return is found inside a store: exactly one of these. */
export const ReturnLookupSchema = Strict(
  {
    id: optionalText(255),
    numericId: Nullable(NumericId()),
    orderName: optionalText(255),
    orderNumericId: Nullable(NumericId({ description: "The order's numeric id: its newest return." })),
  },
  { description: 'One of id, numericId, orderName, orderNumericId (an order finds its newest return).' },
);
export type ReturnLookup = Static<typeof ReturnLookupSchema>;

/**
 * A condition on a return's state, for lists and for changes made only if it
 * holds. `awaitingShipment`: the return is open, no carrier event was ever
 * recorded for it and it was created before `createdBefore` (`is: true`), or
 * it is not (`is: false`).
 */
export const ReturnConditionSchema = Strict({
  statuses: Nullable(Type.Array(OneOf(RETURN_STATUSES), { minItems: 1, maxItems: RETURN_STATUSES.length })),
  awaitingShipment: Nullable(Strict({ createdBefore: DateTime(), is: Type.Boolean() })),
});
export type ReturnCondition = Static<typeof ReturnConditionSchema>;

export const RETURN_TIME_FIELDS = ['created_at', 'updated_at'] as const;

/** A store's returns whose creation (or last update) time falls in [from, until). */
export const ReturnWindowSchema = Strict({
  field: OneOf(RETURN_TIME_FIELDS),
  from: DateTime({ description: 'Inclusive.' }),
  until: DateTime({ description: 'Exclusive.' }),
  condition: Nullable(ReturnConditionSchema),
});
export type ReturnWindow = Static<typeof ReturnWindowSchema>;

/** Order lines (by numeric id) whose items leave a return; a value that is no number names no line. */
export const RemovedLinesSchema = Type.Array(Text({ max: 40 }), { minItems: 1, maxItems: 500 });

/** `POST /returns/{returnId}/process` (the real platform's body): the items processed, by return item id. */
export const ProcessBodySchema = Strict({
  products: Type.Array(
    Strict({
      _id: Text({ description: 'A return item id (items[].id).' }),
      processInput: Nullable(Strict({ newMerchantAdjustment: Nullable(Type.Number()), restock: Type.Optional(Type.Boolean()) })),
      reject: Type.Optional(Type.Boolean({ description: 'The item is rejected: its outcome is rejected.' })),
    }),
    { maxItems: 500, uniqueItemsBy: '_id' },
  ),
  customerNotes: Type.Optional(Text({ min: 0, max: 5000 })),
});
