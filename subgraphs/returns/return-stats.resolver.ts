import { Arg, Ctx, ID, Query, Resolver } from 'type-graphql';
import { storeWindow, TimeWindowInput } from '../../platform/analytics/time-window.input.js';
import { authorizeStoreAccess } from '../../platform/graphql/authorize.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import { check } from '../../platform/validation/index.js';
import { ReturnFilterInput } from './return.input.js';
import type { ReturnsResolverDeps } from './return.resolver.js';
import { ReturnFilterSchema } from './return.schemas.js';
import type { ReturnStatsReads } from './return-stats.rows.js';
import { ReturnDimension, ReturnRateBasis, ReturnStatsType } from './return-stats.type.js';
import { loadReturnStats } from './return-stats.view.js';

/** Dashboards' totals and series of returns (decisions section 18, docs/analytics.md). */
@Resolver()
export class ReturnStatsResolver {
  constructor(private readonly deps: Pick<ReturnsResolverDeps, 'accounts'> & { stats: ReturnStatsReads }) {}

  @Query(() => ReturnStatsType, { description: 'Returns created in a window: totals, every bucket, and the largest groups of a dimension.' })
  async returnStats(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('window', () => TimeWindowInput) window: TimeWindowInput,
    @Arg('by', () => ReturnDimension, { nullable: true }) by: ReturnDimension | undefined,
    @Arg('filter', () => ReturnFilterInput, { nullable: true }) filter: ReturnFilterInput | undefined,
    @Ctx() ctx: GraphQLContext,
    @Arg('rateBasis', () => ReturnRateBasis, { nullable: true, description: 'What returnRate divides by (default ORDERED).' }) rateBasis: ReturnRateBasis | undefined,
  ): Promise<ReturnStatsType> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'returns_read');
    const filters = check(ReturnFilterSchema, { ...filter }, { prefix: '/filter', detail: 'A filter value is invalid.' });
    return loadReturnStats(this.deps.stats, storeId, await storeWindow(ctx, this.deps.accounts, storeId, window), by ?? undefined, filters, rateBasis ?? undefined);
  }
}
