import { visible } from '../../platform/graphql/authorize.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import type { InboundShipmentService } from './inbound-shipment.service.js';
import { inventoryLoaders } from './inventory.loaders.js';
import type { InventoryService } from './inventory.service.js';

type ProductRef = { id: string } | { storeId: string; sku: string };
type ItemRef = { id: string } | { storeId: string; sku: string; kind: string };

/**
 * `_entities` lookups, batched per request and scoped like every lookup: a row
 * of a store the caller cannot see resolves to null. Product and InventoryItem
 * accept either of their keys.
 */
export function inventoryReferences(inventory: InventoryService, shipments: InboundShipmentService) {
  const loaders = (ctx: GraphQLContext) => inventoryLoaders(ctx, inventory, shipments);
  return {
    Location: async (ref: { id: string }, ctx: GraphQLContext) => visible(ctx, await loaders(ctx).locations.load(ref.id)),
    Product: async (ref: ProductRef, ctx: GraphQLContext) =>
      visible(ctx, await ('id' in ref && ref.id ? loaders(ctx).products.load(ref.id) : loaders(ctx).productsBySku.load(ref as { storeId: string; sku: string }))),
    InventoryItem: async (ref: ItemRef, ctx: GraphQLContext) =>
      visible(
        ctx,
        await ('id' in ref && ref.id ? loaders(ctx).items.load(ref.id) : loaders(ctx).itemsByKey.load(ref as { storeId: string; sku: string; kind: string })),
      ),
    InboundShipment: async (ref: { id: string }, ctx: GraphQLContext) => visible(ctx, await loaders(ctx).shipments.load(ref.id)),
  };
}
