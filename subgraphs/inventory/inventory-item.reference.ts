import { visible } from '../../platform/graphql/authorize.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import { itemLoaders } from './inventory-item.resolver.js';
import type { InventoryItemService } from './inventory-item.service.js';

type ItemRef = { id: string } | { storeId: string; sku: string; kind: string };

/** `_entities` lookups of items by either key, batched per request; an item of a store the caller cannot see resolves to null. */
export function inventoryItemReferences(items: InventoryItemService) {
  return {
    InventoryItem: async (ref: ItemRef, ctx: GraphQLContext) => {
      const loaders = itemLoaders(ctx, items);
      return visible(ctx, await ('id' in ref && ref.id ? loaders.byId.load(ref.id) : loaders.byKey.load(ref as { storeId: string; sku: string; kind: string })));
    },
  };
}
