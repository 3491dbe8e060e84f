import { CalendarDate, Int, Money, Nullable, OneOf, Strict, Text, TimeBound, Type } from '../../platform/validation/index.js';
import { InboundShipmentStatus } from './inbound-shipment.rules.js';

/** The inputs of shipments as JSON Schemas: the GraphQL mutation inputs (pointers `/input/...`, `/items/...`) and the REST list query. */
export const CreateInboundShipmentSchema = Strict({
  locationId: Text(),
  shipmentId: Nullable(Text()),
  carrier: Nullable(Text()),
  trackingNumber: Nullable(Text()),
  trackingUrl: Nullable(Text({ max: 2048 })),
  estimatedArrivalDate: Nullable(CalendarDate()),
  freightType: Nullable(Text()),
  paymentTerms: Nullable(Text()),
  freightCost: Nullable(Money()),
  dutyCost: Nullable(Money()),
  items: Type.Array(Strict({ productId: Text(), quantity: Int({ min: 1 }) }), { minItems: 1, maxItems: 1000, uniqueItemsBy: 'productId' }),
});

export const ReceiveItemsSchema = Type.Array(
  Strict({ itemId: Text(), receivedQuantity: Nullable(Int({ min: 0 })), damagedQuantity: Nullable(Int({ min: 0 })), missingQuantity: Nullable(Int({ min: 0 })) }),
  { minItems: 1, maxItems: 1000, uniqueItemsBy: 'itemId' },
);

/** `GET /stores/{storeId}/inbound-shipments` (decisions section 9). */
export const InboundShipmentListQuerySchema = Strict({
  status: Type.Optional(OneOf(Object.values(InboundShipmentStatus))),
  location_id: Type.Optional(Text()),
  created_at_min: Type.Optional(TimeBound({ description: 'Inclusive; a date is its UTC midnight.' })),
  created_at_max: Type.Optional(TimeBound({ description: 'Exclusive.' })),
});
