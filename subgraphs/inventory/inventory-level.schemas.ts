import { Strict, Text, TimeBound, Type } from '../../platform/validation/index.js';

/** `GET /stores/{storeId}/inventory-levels` (the real platform's filters). */
export const InventoryLevelListQuerySchema = Strict({
  location_id: Type.Optional(Text()),
  product_id: Type.Optional(Text()),
  sku: Type.Optional(Text()),
  updated_at_min: Type.Optional(TimeBound({ description: 'Inclusive; a date is its UTC midnight.' })),
  updated_at_max: Type.Optional(TimeBound({ description: 'Exclusive.' })),
});
