import { DateTime, OrNull, Strict, Type, type Static } from '../../platform/validation/index.js';
import type { InventoryLevelView } from './inventory-level.view.js';

// Sums of several items' stock: beyond what one item holds (2^31 - 1).
const LevelCount = Type.Integer({ minimum: 0 });

/**
 * The published REST document of a level (the real platform's inventory
 * level): the service reserves and commits nothing, so everything on hand is
 * available. The builders are typed by the schemas, and the contract test
 * checks every response against them.
 */
export const InventoryLevelDocumentSchema = Strict(
  {
    id: Type.String(),
    product: Strict({ id: Type.String(), title: Type.String(), sku: Type.String() }),
    location: Strict({ id: Type.String(), name: Type.String() }),
    quantity: LevelCount,
    available: LevelCount,
    committed: LevelCount,
    reserved: LevelCount,
    buildable: LevelCount,
    total_available: LevelCount,
    updated_at: DateTime(),
  },
  { title: 'InventoryLevel' },
);

export const InventoryLevelDetailSchema = Strict(
  {
    ...InventoryLevelDocumentSchema.properties,
    product: Strict({ id: Type.String(), title: Type.String(), sku: Type.String(), upc: OrNull(Type.String()), image_url: OrNull(Type.String()) }),
    external_ids: Type.Null({ description: 'The service keeps no external ids of levels.' }),
    created_at: DateTime(),
  },
  { title: 'InventoryLevelDetail' },
);

export const InventoryLevelListSchema = Strict({ inventory_levels: Type.Array(InventoryLevelDocumentSchema) }, { title: 'InventoryLevelList' });

export function inventoryLevelJson(level: InventoryLevelView): Static<typeof InventoryLevelDocumentSchema> {
  return {
    id: level.id,
    product: { id: level.product.id, title: level.product.title, sku: level.product.sku },
    location: { id: level.location.id, name: level.location.name },
    quantity: level.quantity,
    available: level.quantity,
    committed: 0,
    reserved: 0,
    buildable: 0,
    total_available: level.quantity,
    updated_at: level.updatedAt.toISOString(),
  };
}

export function inventoryLevelDetailJson(level: InventoryLevelView): Static<typeof InventoryLevelDetailSchema> {
  const doc = inventoryLevelJson(level);
  return {
    ...doc,
    product: { ...doc.product, upc: level.product.upc, image_url: level.product.imageUrl },
    external_ids: null,
    created_at: level.createdAt.toISOString(),
  };
}
