import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { authorizeStoreAccess } from '../../platform/graphql/authorize.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import { check } from '../../platform/validation/index.js';
import { addressOrNull } from './order.rows.js';
import type { ReturnsResolverDeps } from './return.resolver.js';
import { StoreSettingsInput } from './store-settings.input.js';
import { StoreSettingsSchema } from './store-settings.schemas.js';
import type { StoreSettings } from './store-settings.service.js';
import { StoreSettingsType } from './store-settings.type.js';

@Resolver(() => StoreSettingsType)
export class StoreSettingsResolver {
  constructor(private readonly deps: ReturnsResolverDeps) {}

  @Query(() => StoreSettingsType)
  async storeSettings(@Arg('storeId', () => ID) storeId: string, @Ctx() ctx: GraphQLContext): Promise<StoreSettings> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'returns_read');
    return this.deps.settings.get(storeId);
  }

  @Mutation(() => StoreSettingsType, { description: 'Sets the fields given; omitted ones keep their value.' })
  async updateStoreSettings(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => StoreSettingsInput) input: StoreSettingsInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<StoreSettings> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'returns_write');
    const settings = check(StoreSettingsSchema, { ...input, ...(input.returnAddress ? { returnAddress: { ...input.returnAddress } } : {}) }, { prefix: '/input', detail: 'The store settings are invalid.' });
    return this.deps.settings.update(storeId, {
      returnLocationId: settings.returnLocationId ?? undefined,
      requireReturnApproval: settings.requireReturnApproval ?? undefined,
      returnPhoneNumber: settings.returnPhoneNumber ?? undefined,
      returnAddress: settings.returnAddress ? addressOrNull(settings.returnAddress) : undefined,
    });
  }
}
