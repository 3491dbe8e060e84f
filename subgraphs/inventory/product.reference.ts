import { visible } from '../../platform/graphql/authorize.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import { productLoaders } from './product.resolver.js';
import type { ProductService } from './product.service.js';

type ProductRef = { id: string } | { storeId: string; sku: string };

/** `_entities` lookups of products by either key, batched per request; a product of a store the caller cannot see resolves to null. */
export function productReferences(products: ProductService) {
  return {
    Product: async (ref: ProductRef, ctx: GraphQLContext) => {
      const loaders = productLoaders(ctx, products);
      return visible(ctx, await ('id' in ref && ref.id ? loaders.byId.load(ref.id) : loaders.bySku.load(ref as { storeId: string; sku: string })));
    },
  };
}
