import DataLoader from 'dataloader';
import { Arg, Ctx, ID, Query, Resolver } from 'type-graphql';
import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import { authorizeStoreAccess } from '../../platform/graphql/authorize.js';
import { memoize, type GraphQLContext } from '../../platform/graphql/context.js';
import { LocationType } from './inventory.type.js';
import type { InventoryService, Table } from './inventory.service.js';

export interface InventoryResolverDeps {
  inventory: InventoryService;
  accounts: AccountsService;
}

/** One loader per table and request: entity references arrive in batches from the gateway. */
export function inventoryLoader(ctx: GraphQLContext, inventory: InventoryService, table: Table) {
  return memoize(ctx, `inventory.${table}`, () => new DataLoader<string, { id: string; storeId: string } | null>(async (ids) => {
    const rows = new Map((await inventory.findByIds(table, ids)).map((r) => [r.id, r]));
    return ids.map((id) => rows.get(id) ?? null);
  }));
}

@Resolver(() => LocationType)
export class LocationResolver {
  constructor(private readonly deps: InventoryResolverDeps) {}

  @Query(() => [LocationType], { description: "The store's locations (warehouses, return centres)." })
  async locations(@Arg('storeId', () => ID) storeId: string, @Ctx() ctx: GraphQLContext) {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'inventory_read');
    return this.deps.inventory.locations(storeId);
  }
}
