import { Arg, Ctx, ID, Query, Resolver } from 'type-graphql';
import { storeWindow, TimeWindowInput } from '../../platform/analytics/time-window.input.js';
import { firstInstantAtOrAfter } from '../../platform/analytics/time-window.js';
import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import { authorizeStoreAccess } from '../../platform/graphql/authorize.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import type { InventoryStatsReads } from './inventory-stats.rows.js';
import { InventoryStatsType, type InboundMeasuresType } from './inventory-stats.type.js';

export interface InventoryStatsResolverDeps {
  stats: InventoryStatsReads;
  accounts: AccountsService;
}

const none = (): InboundMeasuresType => ({ shipments: 0, units: 0 });
const add = (m: InboundMeasuresType, row: InboundMeasuresType) => {
  m.shipments += row.shipments;
  m.units += row.units;
};

/** Dashboards' stock questions (docs/analytics.md): on hand by location and kind, inbound by expected arrival. */
@Resolver()
export class InventoryStatsResolver {
  constructor(private readonly deps: InventoryStatsResolverDeps) {}

  @Query(() => InventoryStatsType, { description: 'Stock on hand now, and units in transit by expected arrival within the window.' })
  async inventoryStats(@Arg('storeId', () => ID) storeId: string, @Arg('window', () => TimeWindowInput) window: TimeWindowInput, @Ctx() ctx: GraphQLContext): Promise<InventoryStatsType> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'inventory_read');
    const resolved = await storeWindow(ctx, this.deps.accounts, storeId, window);
    const [onHand, inbound] = await Promise.all([this.deps.stats.onHand(storeId), this.deps.stats.inbound(storeId)]);
    const series = resolved.starts.map(none);
    const [totals, overdue, later, unscheduled] = [none(), none(), none(), none()];
    for (const row of inbound) {
      if (!row.date) {
        add(unscheduled, row);
        continue;
      }
      // A date arrives at its midnight in the window's zone.
      const at = firstInstantAtOrAfter(Date.parse(`${row.date}T00:00:00Z`), resolved.timeZone);
      if (at < resolved.from) add(overdue, row);
      else if (at >= resolved.until) add(later, row);
      else {
        const i = resolved.starts.findLastIndex((start) => start <= at);
        add(series[i]!, row);
        add(totals, row);
      }
    }
    return { onHand, inbound: { totals, overdue, later, unscheduled, series: resolved.starts.map((start, i) => ({ start: new Date(start), measures: series[i]! })) } };
  }
}
