import { CountryCode, Currency, DateTime, Email, Int, OneOf, Phone, Strict, Text, Type, type Static } from '../../platform/validation/index.js';
import { RETURN_STATUSES } from './return.rules.js';
import { RETURN_TYPES } from './return.schemas.js';
import { MAX_TAGS_PER_RETURN, TagName } from './return-tag.schemas.js';

/**
 * `POST /stores/{storeId}/returns/bulk`: returns made in another system brought in (the real
 * platform's "Import returns"), as its published schema shapes them, plus what a merchant moving
 * from another returns platform needs to keep its history as it was: each return's status and
 * dates, the system it comes from, its tags. The schema's objects allow more properties; these are
 * the ones this service reads (others are refused with their pointer, as on every body).
 */

const MAX_IMPORTED_RETURNS = 100;
const Opt = Type.Optional;

const ImportAddressSchema = Strict({
  line1: Text({ max: 500 }),
  line2: Opt(Text({ min: 0, max: 500 })),
  city: Text({ max: 500 }),
  state: Opt(Text({ min: 0, max: 500, description: 'State or province code.' })),
  postalCode: Opt(Text({ min: 0, max: 500 })),
  country: CountryCode({ description: 'ISO 3166-1 alpha-2.' }),
  name: Opt(Text({ max: 500, description: 'Recipient or location name.' })),
  phone: Opt(Phone({ description: 'E.164.' })),
});
export type ImportAddress = Static<typeof ImportAddressSchema>;

export const ImportedReturnSchema = Strict(
  {
    products: Type.Array(
      Strict({
        productId: Text({ description: "The product's id in this service (`prd_...`: the inventory's products)." }),
        quantity: Int({ min: 1 }),
        sku: Opt(Text({ description: "Overrides the product's sku; a product unknown here needs it." })),
        barcode: Opt(Text({ description: "Overrides the product's UPC." })),
        productTitle: Opt(Text({ max: 1000 })),
        variantTitle: Opt(Text({ max: 1000 })),
        reason: Opt(Text({ min: 0, max: 1000 })),
        condition: Opt(Text({ max: 255, description: "The item's condition: its grade." })),
      }),
      { minItems: 1, maxItems: 500 },
    ),
    customer: Opt(Strict({ firstName: Opt(Text({ min: 0 })), lastName: Opt(Text({ min: 0 })), email: Opt(Email()) })),
    externalReferenceId: Opt(Text({ description: 'The return or RMA id in the system it comes from: the same one again is the same return (idempotent).' })),
    trackingNumber: Opt(Text({ description: "The inbound shipment's tracking number: the return's first shipment." })),
    carrier: Opt(Text()),
    notes: Opt(Text({ min: 0, max: 5000 })),
    idempotencyKey: Opt(Text({ description: 'Without externalReferenceId: the same key again is the same return.' })),
    currency: Opt(Currency({ description: 'ISO 4217; USD when not given.' })),
    shippingAddress: Opt(ImportAddressSchema),
    merchantAddress: Opt(ImportAddressSchema),
    status: Opt(OneOf(RETURN_STATUSES, { description: 'Its status there, kept as it is (no transition is walked): open (ready for warehouse intake) when not given.' })),
    type: Opt(OneOf(RETURN_TYPES, { description: 'Default return.' })),
    createdAt: Opt(DateTime({ description: 'When it was created there (default: now).' })),
    updatedAt: Opt(DateTime({ description: 'When it last changed there (default: createdAt).' })),
    closedAt: Opt(DateTime({ description: 'For a complete, rejected or deleted return: when it closed (default: updatedAt).' })),
    externalProvider: Opt(Text({ max: 64, description: 'The system it comes from (e.g. loop, shopify). With shopify, externalReferenceId is shown in externalReturnIds (the real platform names only Shopify return ids there).' })),
    tags: Opt(Type.Array(TagName(), { maxItems: MAX_TAGS_PER_RETURN, uniqueItems: true, description: 'Tags it carries (created when the store lacks them).' })),
  },
  { title: 'ImportedReturn' },
);
export type ImportedReturn = Static<typeof ImportedReturnSchema>;

/** The body: each return is checked alone (an invalid one is an `error` result, the others go on). */
export const BulkReturnsSchema = Strict(
  {
    returns: Type.Array(ImportedReturnSchema, { minItems: 1, maxItems: MAX_IMPORTED_RETURNS }),
    options: Opt(
      Strict({
        webhooks: Opt(Type.Boolean({ description: 'Also publish `return.created` for each return created (webhooks, flows). Default false: history raises no events.' })),
      }),
    ),
  },
  { title: 'BulkReturns' },
);

/** The envelope alone: each return is then checked against ImportedReturnSchema by itself. */
export const BulkReturnsEnvelopeSchema = Strict({
  returns: Type.Array(Type.Unknown(), { minItems: 1, maxItems: MAX_IMPORTED_RETURNS }),
  options: Opt(Strict({ webhooks: Opt(Type.Boolean()) })),
});

export const BulkReturnsResultSchema = Strict(
  {
    totalCount: Int({ min: 0 }),
    processedCount: Int({ min: 0, description: 'Returns created (or found: imported before under the same reference).' }),
    errorCount: Int({ min: 0 }),
    results: Type.Array(
      Type.Union([
        Strict({ status: Type.Literal('created'), index: Int({ min: 0 }), returnId: Type.String() }),
        Strict({ status: Type.Literal('error'), index: Int({ min: 0 }), error: Type.String({ description: 'Every violation, each with its pointer into the return.' }) }),
      ]),
      { description: 'In the order of the request.' },
    ),
  },
  { title: 'BulkReturnsResult' },
);
export type BulkReturnsResult = Static<typeof BulkReturnsResultSchema>;
