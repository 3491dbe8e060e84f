import DataLoader from 'dataloader';
import { memoize, type GraphQLContext } from '../../platform/graphql/context.js';
import { batchByKey as byKey } from '../../platform/graphql/loaders.js';
import type { InboundShipmentService } from './inbound-shipment.service.js';
import type { InventoryService } from './inventory.service.js';
import type { InboundShipmentView, InventoryItemView, LocationRow, ProductRow } from './inventory.views.js';

const idOf = (row: { id: string }) => row.id;
const same = (id: string) => id;
const skuKey = (k: { storeId: string; sku: string }) => `${k.storeId}\u0000${k.sku}`;
const itemKey = (k: { storeId: string; sku: string; kind: string }) => `${k.storeId}\u0000${k.sku}\u0000${k.kind}`;

/**
 * Per-request loaders: every lookup a response needs (entity references from
 * the gateway arrive in batches) costs one query per kind of key. They do not
 * check visibility; callers pass rows through `visible(ctx, row)`.
 */
export function inventoryLoaders(ctx: GraphQLContext, inventory: InventoryService, shipments: InboundShipmentService) {
  return memoize(ctx, 'inventory.loaders', () => ({
    locations: new DataLoader<string, LocationRow | null>(byKey((ids) => inventory.locationsByIds(ids), idOf, same)),
    products: new DataLoader<string, ProductRow | null>(byKey((ids) => inventory.productsByIds(ids), idOf, same)),
    productsBySku: new DataLoader<{ storeId: string; sku: string }, ProductRow | null, string>(byKey((keys) => inventory.productsBySku(keys), skuKey, skuKey), {
      cacheKeyFn: skuKey,
    }),
    items: new DataLoader<string, InventoryItemView | null>(byKey((ids) => inventory.itemsByIds(ids), idOf, same)),
    itemsByKey: new DataLoader<{ storeId: string; sku: string; kind: string }, InventoryItemView | null, string>(
      byKey((keys) => inventory.itemsByKey(keys), itemKey, itemKey),
      { cacheKeyFn: itemKey },
    ),
    shipments: new DataLoader<string, InboundShipmentView | null>(byKey((ids) => shipments.shipmentsByIds(ids), idOf, same)),
  }));
}

export type InventoryLoaders = ReturnType<typeof inventoryLoaders>;
