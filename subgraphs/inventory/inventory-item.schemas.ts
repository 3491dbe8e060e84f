import { CalendarDate, Int, Nullable, OneOf, Strict, Text, Type } from '../../platform/validation/index.js';
import { InventoryKind } from './inventory-item.rules.js';

/** The inputs of stock changes as JSON Schemas (the GraphQL mutation inputs, pointers `/input/...`) and the REST list query. */
const KINDS = Object.values(InventoryKind);

export const AdjustInventorySchema = Strict(
  {
    productId: Nullable(Text()),
    sku: Nullable(Text()),
    locationId: Text(),
    kind: Nullable(OneOf(KINDS)),
    delta: Type.Integer({ minimum: -2_147_483_647, maximum: 2_147_483_647, not: { const: 0 }, detail: 'must be a non-zero integer of at most 2147483647 units' }),
    lotNumber: Nullable(Text()),
    expirationDate: Nullable(CalendarDate()),
  },
  { requireAnyOf: ['productId', 'sku'] },
);

export const ReceiveUndeclaredSchema = Strict({ locationId: Text(), sku: Text(), quantity: Int({ min: 1 }) });

/** `GET /stores/{storeId}/inventory-items` (decisions section 9). */
export const InventoryItemListQuerySchema = Strict({
  location_id: Type.Optional(Text()),
  kind: Type.Optional(OneOf(KINDS)),
  sku: Type.Optional(Text()),
  lot_number: Type.Optional(Text()),
});
