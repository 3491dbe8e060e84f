import { Type, type TSchema } from '@sinclair/typebox';
import { LOOP_STATES } from './params.js';

/**
 * The shapes the compatibility API answers with, for its OpenAPI document
 * and the contract test that holds every response to it. They describe what
 * `format.ts` and the routes build; Loop's own names and quirks included.
 */

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Decimal = Type.String({ pattern: '^-?\\d+(\\.\\d+)?$', description: 'A decimal amount in the currency, as a string (`"12.50"`).' });
const DetailsTime = Type.String({ description: '`YYYY-MM-DD HH:MM:SS`, UTC.' });
const ListTime = Type.String({ description: 'ISO 8601 with milliseconds and `Z`.' });
const State = Type.Union(LOOP_STATES.map((s) => Type.Literal(s)), { description: 'Loop\'s state of the return (decisions section 11).' });

/** What a line item and an exchange line both name: the product, and the units with their price. */
const ProductUnits = {
  product_id: Nullable(Type.String()),
  variant_id: Nullable(Type.String()),
  sku: Nullable(Type.String()),
  title: Nullable(Type.String()),
  quantity: Type.Integer(),
  price: Decimal,
};

const LoopLineItem = Type.Object(
  {
    line_item_id: Type.Integer({ description: 'The numeric id of the order line.' }),
    provider_line_item_id: Type.String(),
    ...ProductUnits,
    discount: Decimal,
    tax: Decimal,
    refund: Decimal,
    outcome: Type.String(),
    return_reason: Type.String(),
    return_comment: Nullable(Type.String()),
    returned_at: Type.String(),
  },
  { title: 'LoopLineItem', additionalProperties: false },
);

const LoopExchangeLine = Type.Object(
  {
    line_item_id: Type.Integer({ description: 'The numeric id of the order line exchanged.' }),
    ...ProductUnits,
  },
  { title: 'LoopExchangeLine', additionalProperties: false, description: 'The replacement of an exchanged item: the returned line\'s product and variant (no other variant is recorded).' },
);

function loopReturnSchema(title: string, time: TSchema) {
  return Type.Object(
    {
      id: Type.Integer({ description: 'The numeric id of the return (stable, never reused).' }),
      service_id: Type.String({ description: 'The return\'s id in this service (`ret_...`).' }),
      state: State,
      created_at: time,
      updated_at: time,
      order_id: Type.Integer(),
      order_name: Type.String(),
      provider_order_id: Type.String(),
      customer: Nullable(Type.String()),
      currency: Type.String(),
      total: Decimal,
      return_product_total: Decimal,
      return_discount_total: Decimal,
      return_tax_total: Decimal,
      return_total: Decimal,
      return_credit_total: Decimal,
      exchange_total: Decimal,
      refund: Decimal,
      gift_card: Decimal,
      outcome: Nullable(Type.String()),
      carrier: Nullable(Type.String()),
      tracking_number: Nullable(Type.String()),
      label_status: Nullable(Type.String()),
      line_items: Type.Array(LoopLineItem),
      exchanges: Type.Array(LoopExchangeLine, { description: 'One line per exchanged item; empty when nothing is exchanged.' }),
    },
    { title, additionalProperties: false },
  );
}

const LoopReturnDetails = loopReturnSchema('LoopReturnDetails', DetailsTime);
const LoopReturnListEntry = loopReturnSchema('LoopReturnListEntry', ListTime);

export const LoopReturnList = Type.Union(
  [
    Type.Array(LoopReturnListEntry, { description: 'Without `paginate=true`: every return of the window.' }),
    Type.Object(
      {
        returns: Type.Array(LoopReturnListEntry),
        nextPageUrl: Nullable(Type.String({ description: 'Absolute URL of the next page, carrying every filter and `cursor`.' })),
        previousPageUrl: Nullable(Type.String()),
      },
      { title: 'LoopReturnPage', additionalProperties: false, description: 'With `paginate=true`.' },
    ),
  ],
);

const Message = Type.Object({ message: Type.String() }, { title: 'LoopMessage', additionalProperties: false });
const ErrorsMessage = Type.Object(
  { errors: Type.Object({ message: Type.String(), code: Type.Optional(Type.String()) }, { additionalProperties: false }) },
  { title: 'LoopErrors', additionalProperties: false },
);
const ErrorMessage = Type.Object({ error: Type.Object({ message: Type.String() }, { additionalProperties: false }) }, { title: 'LoopError', additionalProperties: false });
const ContentMessage = Type.Object({ content: Type.String() }, { title: 'LoopContentMessage', additionalProperties: false });

/** Every answer of an action is 200: `true` when done, else Loop's refusal or "not found" body (decisions 11, 14). */
export const ActionOutcome = Type.Union([Type.Literal(true), ErrorsMessage, Message, ContentMessage], {
  description: '`true` when the action was applied; otherwise the refusal of the action/state table, or `{"errors":{"message":"No return found with this ID."}}`.',
});

export const DetailsOutcome = Type.Union([LoopReturnDetails, ErrorMessage], { description: 'The return, or `{"error":{"message":"No return found with this ID."}}`.' });

export const RemoveRefusal = Type.Union([Message, ErrorMessage], { description: 'The return cannot be modified, the items do not qualify, or `line_item_id` is missing.' });

export const NoteRefusal = ErrorsMessage;

const LoopNote = Type.Object(
  { id: Type.Integer(), content: Type.String(), created_at: DetailsTime },
  { title: 'LoopNote', additionalProperties: false },
);

export const NotesOutcome = Type.Union([Type.Array(LoopNote), ErrorsMessage], { description: 'The notes, oldest first; or the "not found" body.' });

export const AsnRow = Type.Object(
  {
    id: Type.Integer(),
    return_line_item_id: Type.String(),
    order_id: Type.Integer(),
    order_name: Type.String(),
    state: State,
    customer_email: Nullable(Type.String()),
    title: Nullable(Type.String()),
    sku: Nullable(Type.String()),
    barcode: Nullable(Type.String({ description: "The item's barcode: an imported return's, else its product's UPC; null when neither is known." })),
    quantity: Type.Integer(),
    purchase_price: Decimal,
    carrier: Nullable(Type.String()),
    tracking_number: Nullable(Type.String()),
    label_status: Nullable(Type.String()),
    return_reason: Type.String(),
    outcome: Type.String(),
    currency: Type.String(),
    created_at: DetailsTime,
    updated_at: DetailsTime,
    closed_at: Nullable(DetailsTime),
  },
  { title: 'AsnRow', additionalProperties: false },
);

/** Loop's answers to a missing, unknown or revoked key, to a key without the scope, to a throttled key, and Laravel's validation answer. */
export const UnauthorizedBody = Type.Object(
  { error: Type.Object({ code: Type.Literal('401'), http_code: Type.Literal('GEN-UNAUTHORIZED'), message: Type.Literal('Unauthorized.') }, { additionalProperties: false }) },
  { title: 'LoopUnauthorized', additionalProperties: false },
);
export const ForbiddenBody = Type.Object(
  { error: Type.Object({ code: Type.Literal('403'), http_code: Type.Literal('GEN-FORBIDDEN'), message: Type.Literal('Forbidden.') }, { additionalProperties: false }) },
  { title: 'LoopForbidden', additionalProperties: false },
);
export const MessageBody = Message;
export const ValidationBody = Type.Object(
  { message: Type.String(), errors: Type.Record(Type.String(), Type.Array(Type.String())) },
  { title: 'LaravelValidation', additionalProperties: false, description: 'Laravel\'s validation answer: the first message, and every message by field.' },
);

/** A Loop webhook subscription, as Loop's programmatic webhook API shows one. */
const LoopWebhookShape = {
  id: Type.Integer({ description: "The subscription's numeric id (`DELETE /webhooks/{id}`)." }),
  topic: Type.String({ description: '`return`, `label` or `restock`: echoed in each delivery.' }),
  trigger: Type.String({ description: 'Which change sends a delivery: `return.created`, `return.updated`, `return.closed`, `label.created`, `label.updated`, `restock.requested`.' }),
  url: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('inactive')], { description: '`inactive`: deactivated by a PUT, or disabled by the service (a 410, or nothing but failures for the disable window).' }),
  created_at: DetailsTime,
  updated_at: DetailsTime,
};
export const LoopWebhook = Type.Object(LoopWebhookShape, { title: 'LoopWebhook', additionalProperties: false });
export const LoopCreatedWebhook = Type.Object(
  { ...LoopWebhookShape, secret: Type.String({ description: 'The key of `X-Loop-Signature` (base64 HMAC-SHA256 of the body keyed with this text). Shown only here.' }) },
  { title: 'LoopCreatedWebhook', additionalProperties: false },
);
export const LoopWebhookList = Type.Object({ webhooks: Type.Array(LoopWebhook) }, { title: 'LoopWebhookList', additionalProperties: false });
export const LoopWebhookBody = Type.Object(
  {
    url: Type.Optional(Type.String({ description: 'https, never a private, loopback or link-local address (required on create).' })),
    topic: Type.Optional(Type.String({ description: '`return`, `label` or `restock` (required on create).' })),
    trigger: Type.Optional(Type.String({ description: 'One of the triggers (required on create).' })),
    status: Type.Optional(Type.String({ description: '`active` (the default here) or `inactive`.' })),
  },
  { title: 'LoopWebhookInput' },
);
