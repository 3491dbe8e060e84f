import type { Orm } from '../../platform/db/orm.js';
import { DateTime, OneOf, OrNull, Strict, Type, type Static } from '../../platform/validation/index.js';
import { itemIdsAfter } from './inventory-item.rows.js';
import { InventoryKind } from './inventory-item.rules.js';
import { loadItems, type InventoryItemView } from './inventory-item.view.js';

/**
 * The published REST document of an item (service-spec.md, snake_case): one
 * definition for the `/v2.2` responses and the outbox events, so webhooks
 * carry what the API shows. The builder is typed by the schema, and the
 * contract test checks every response against it.
 */
export const InventoryItemDocumentSchema = Strict(
  {
    id: Type.String(),
    sku: Type.String(),
    name: Type.String({ description: 'The product title, then " - " and the variant title when there is one.' }),
    kind: OneOf(Object.values(InventoryKind)),
    lot_number: OrNull(Type.String({ description: 'The lot the units belong to; null for stock without a lot.' })),
    expiration_date: OrNull(Type.String({ format: 'date', description: "The lot's expiration date, when known." })),
    quantity: Type.Integer({ description: 'On hand: the sum of the locations, or the quantity at `location_id` when the list is filtered by it.' }),
    locations: Type.Array(Strict({ location_id: Type.String(), location_name: Type.String(), quantity: Type.Integer() })),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { title: 'InventoryItem' },
);

export const InventoryItemListSchema = Strict({ inventory_items: Type.Array(InventoryItemDocumentSchema) }, { title: 'InventoryItemList' });

export type InventoryItemDocument = Static<typeof InventoryItemDocumentSchema>;

export function inventoryItemJson(item: InventoryItemView): InventoryItemDocument {
  return {
    id: item.id,
    sku: item.sku,
    name: item.name,
    kind: item.kind,
    lot_number: item.lotNumber,
    expiration_date: item.expirationDate,
    quantity: item.quantity,
    locations: item.locations.map((l) => ({ location_id: l.locationId, location_name: l.locationName, quantity: l.quantity })),
    created_at: item.createdAt.toISOString(),
    updated_at: item.updatedAt.toISOString(),
  };
}

/** A store's inventory items as their REST documents, a page at a time in id order (a webhook backfill's read). */
export async function inventoryItemDocumentsPage(orm: Orm, storeId: string, afterId: string | null, limit: number) {
  const em = orm.em.fork();
  return (await loadItems(em, await itemIdsAfter(em, storeId, afterId, limit))).map((i) => ({ subjectId: i.id, data: { inventory_item: inventoryItemJson(i) } }));
}
