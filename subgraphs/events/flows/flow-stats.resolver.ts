import { Arg, Ctx, ID, Query, Resolver } from 'type-graphql';
import { storeWindow, TimeWindowInput } from '../../../platform/analytics/time-window.input.js';
import type { AccountsService } from '../../../platform/accounts/accounts.service.js';
import type { HeavyReads } from '../../../platform/db/replica.js';
import { authorizeStoreAccess } from '../../../platform/graphql/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { FlowStatsType } from './flow-stats.type.js';
import { loadFlowStats } from './flow-stats.view.js';

/** Flow activity for dashboards (scope `flows_read`, docs/analytics.md). */
@Resolver()
export class FlowStatsResolver {
  constructor(private readonly deps: { reads: HeavyReads; accounts: AccountsService }) {}

  @Query(() => FlowStatsType, { description: "Runs started, completed, failed and exited, and messages by channel and status, of the store's flows (or one) in a window." })
  async flowStats(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('window', () => TimeWindowInput) window: TimeWindowInput,
    @Arg('flowId', () => ID, { nullable: true }) flowId: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<FlowStatsType> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'flows_read');
    return loadFlowStats(this.deps.reads, storeId, await storeWindow(ctx, this.deps.accounts, storeId, window), flowId ?? undefined);
  }
}
