import DataLoader from 'dataloader';
import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import { authorizeStoreAccess } from '../../platform/graphql/authorize.js';
import { memoize, type GraphQLContext } from '../../platform/graphql/context.js';
import { batchById, batchByKey } from '../../platform/graphql/loaders.js';
import { UpsertProductInput } from './product.input.js';
import type { ProductRow } from './product.rows.js';
import type { ProductService } from './product.service.js';
import { ProductType } from './product.type.js';

export interface ProductResolverDeps {
  products: ProductService;
  accounts: AccountsService;
}

const skuKey = (k: { storeId: string; sku: string }) => `${k.storeId}\u0000${k.sku}`;

/** Products by id and by (store, sku), one query per kind of key per request (no visibility check: callers use `visible`). */
export function productLoaders(ctx: GraphQLContext, products: ProductService) {
  return memoize(ctx, 'inventory.products', () => ({
    byId: new DataLoader<string, ProductRow | null>(batchById((ids) => products.productsByIds(ids))),
    bySku: new DataLoader<{ storeId: string; sku: string }, ProductRow | null, string>(batchByKey((keys) => products.productsBySku(keys), skuKey, skuKey), {
      cacheKeyFn: skuKey,
    }),
  }));
}

@Resolver(() => ProductType)
export class ProductResolver {
  constructor(private readonly deps: ProductResolverDeps) {}

  @Query(() => ProductType, { nullable: true, description: 'A product of the store by id or sku; null when absent.' })
  async product(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID, { nullable: true }) id: string | undefined,
    @Arg('sku', () => String, { nullable: true }) sku: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<ProductRow | null> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'inventory_read');
    const loaders = productLoaders(ctx, this.deps.products);
    const row = id ? await loaders.byId.load(id) : sku ? await loaders.bySku.load({ storeId, sku }) : null;
    return row?.storeId === storeId ? row : null;
  }

  @Mutation(() => ProductType, { description: 'Creates the product of a sku, or updates it.' })
  async upsertProduct(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => UpsertProductInput) input: UpsertProductInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<ProductRow> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'inventory_read');
    return this.deps.products.upsertProduct(storeId, input);
  }
}
