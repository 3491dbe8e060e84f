import { Arg, Ctx, ID, Query, Resolver } from 'type-graphql';
import { storeWindow, TimeWindowInput } from '../platform/analytics/time-window.input.js';
import type { AccountsService } from '../platform/accounts/accounts.service.js';
import type { HeavyReads } from '../platform/db/replica.js';
import { authorizeStoreAccess } from '../platform/graphql/authorize.js';
import type { GraphQLContext } from '../platform/graphql/context.js';
import { loadWebhookStats } from './webhook-stats.view.js';
import { WebhookStatsType } from './webhook-stats.type.js';

/** The webhook delivery health of a store, for dashboards (scope `webhooks_read`), in the platform subgraph. */
@Resolver()
export class WebhookStatsResolver {
  constructor(private readonly deps: { reads: HeavyReads; accounts: AccountsService }) {}

  @Query(() => WebhookStatsType, { description: "Deliveries of the store's webhooks in a window: succeeded, failed, pending and latency, per bucket and per subscription." })
  async webhookStats(@Arg('storeId', () => ID) storeId: string, @Arg('window', () => TimeWindowInput) window: TimeWindowInput, @Ctx() ctx: GraphQLContext): Promise<WebhookStatsType> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'webhooks_read');
    return loadWebhookStats(this.deps.reads, storeId, await storeWindow(ctx, this.deps.accounts, storeId, window));
  }
}
