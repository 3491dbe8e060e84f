import DataLoader from 'dataloader';
import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import { authorizeStoreAccess } from '../../platform/graphql/authorize.js';
import { memoize, type GraphQLContext } from '../../platform/graphql/context.js';
import { batchById } from '../../platform/graphql/loaders.js';
import { CreateLocationInput } from './location.input.js';
import type { LocationRow } from './location.rows.js';
import type { LocationService } from './location.service.js';
import { LocationType } from './location.type.js';

export interface LocationResolverDeps {
  locations: LocationService;
  accounts: AccountsService;
}

/** Locations by id, one query per request whatever the number asked (no visibility check: callers use `visible`). */
export function locationLoader(ctx: GraphQLContext, locations: LocationService) {
  return memoize(ctx, 'inventory.locations', () => new DataLoader<string, LocationRow | null>(batchById((ids) => locations.locationsByIds(ids))));
}

@Resolver(() => LocationType)
export class LocationResolver {
  constructor(private readonly deps: LocationResolverDeps) {}

  @Query(() => [LocationType], { description: "The store's locations (warehouses, return centres)." })
  async locations(@Arg('storeId', () => ID) storeId: string, @Ctx() ctx: GraphQLContext): Promise<LocationRow[]> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'inventory_read');
    return this.deps.locations.locations(storeId);
  }

  @Mutation(() => LocationType)
  async createLocation(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => CreateLocationInput) input: CreateLocationInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<LocationRow> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'inventory_read');
    return this.deps.locations.createLocation(storeId, input);
  }
}
