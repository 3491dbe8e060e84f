import { CalendarDate, Int, Money, Nullable, OneOf, Strict, Text, TimeBound, Type, type Static } from '../../platform/validation/index.js';
import { InboundShipmentStatus, InventoryKind } from './inventory.values.js';

/**
 * The inputs of the inventory subgraph as JSON Schemas: the GraphQL mutation
 * inputs (pointers `/input/...`) and the REST list queries.
 */
const optionalText = (max = 255) => Nullable(Text({ max }));
const SHIPMENT_STATUSES = Object.values(InboundShipmentStatus);
const KINDS = Object.values(InventoryKind);

export const CreateLocationSchema = Strict({ name: Text(), externalId: optionalText() });

export const UpsertProductSchema = Strict({ sku: Text(), title: Text({ max: 1000 }), variantTitle: optionalText(1000), upc: optionalText(), imageUrl: optionalText(2048) });

export const CreateInboundShipmentSchema = Strict({
  locationId: Text(),
  shipmentId: optionalText(),
  carrier: optionalText(),
  trackingNumber: optionalText(),
  trackingUrl: optionalText(2048),
  estimatedArrivalDate: Nullable(CalendarDate()),
  freightType: optionalText(),
  paymentTerms: optionalText(),
  freightCost: Nullable(Money()),
  dutyCost: Nullable(Money()),
  items: Type.Array(Strict({ productId: Text(), quantity: Int({ min: 1 }) }), { minItems: 1, maxItems: 1000, uniqueItemsBy: 'productId' }),
});

export const ReceiveItemsSchema = Type.Array(
  Strict({ itemId: Text(), receivedQuantity: Nullable(Int({ min: 0 })), damagedQuantity: Nullable(Int({ min: 0 })), missingQuantity: Nullable(Int({ min: 0 })) }),
  { minItems: 1, maxItems: 1000, uniqueItemsBy: 'itemId' },
);

export const AdjustInventorySchema = Strict(
  {
    productId: optionalText(),
    sku: optionalText(),
    locationId: Text(),
    kind: Nullable(OneOf(KINDS)),
    delta: Type.Integer({ minimum: -2_147_483_647, maximum: 2_147_483_647, not: { const: 0 }, detail: 'must be a non-zero integer of at most 2147483647 units' }),
    lotNumber: optionalText(),
    expirationDate: Nullable(CalendarDate()),
  },
  { requireAnyOf: ['productId', 'sku'] },
);

export const ReceiveUndeclaredSchema = Strict({ locationId: Text(), sku: Text(), quantity: Int({ min: 1 }) });

/** `GET /stores/{storeId}/inbound-shipments` (decisions section 9). */
export const InboundShipmentListQuerySchema = Strict({
  status: Type.Optional(OneOf(SHIPMENT_STATUSES)),
  location_id: Type.Optional(Text()),
  created_at_min: Type.Optional(TimeBound({ description: 'Inclusive; a date is its UTC midnight.' })),
  created_at_max: Type.Optional(TimeBound({ description: 'Exclusive.' })),
});

/** `GET /stores/{storeId}/inventory-items` (decisions section 9). */
export const InventoryItemListQuerySchema = Strict({
  location_id: Type.Optional(Text()),
  kind: Type.Optional(OneOf(KINDS)),
  sku: Type.Optional(Text()),
  lot_number: Type.Optional(Text()),
});

/** `GET /stores/{storeId}/inventory-levels` (the real platform's filters). */
export const InventoryLevelListQuerySchema = Strict({
  location_id: Type.Optional(Text()),
  product_id: Type.Optional(Text()),
  sku: Type.Optional(Text()),
  updated_at_min: Type.Optional(TimeBound({ description: 'Inclusive; a date is its UTC midnight.' })),
  updated_at_max: Type.Optional(TimeBound({ description: 'Exclusive.' })),
});

export type CreateInboundShipment = Static<typeof CreateInboundShipmentSchema>;
export type AdjustInventory = Static<typeof AdjustInventorySchema>;
