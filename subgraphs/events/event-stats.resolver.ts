import { Arg, Ctx, ID, Query, Resolver } from 'type-graphql';
import { topGroups } from '../../platform/analytics/sql.js';
import { storeWindow, TimeWindowInput } from '../../platform/analytics/time-window.input.js';
import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import { invalid } from '../../platform/errors.js';
import { authorizeStoreAccess } from '../../platform/graphql/authorize.js';
import { memoize, type GraphQLContext } from '../../platform/graphql/context.js';
import type { EventStatDays } from './event-stats.job.js';
import type { EventStatsReads, EventSums } from './event-stats.rows.js';
import { EventStatsType, type EventMeasuresType } from './event-stats.type.js';
import { PropertyConditionInput } from './segments/segment.input.js';

const measures = ({ count, customers, sum }: EventSums): EventMeasuresType => ({ count, uniqueCustomers: customers, sum });

/** A property name argument: given, it must name something. */
function propertyName(value: string | null | undefined, argument: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!value) throw invalid('validation-failed', `${argument} must name a data property.`, [{ pointer: `/${argument}`, detail: 'must be a non-empty string' }]);
  return value;
}

/** Dashboards' metric aggregates over custom events (decisions section 18, docs/analytics.md). */
@Resolver()
export class EventStatsResolver {
  constructor(private readonly deps: { stats: EventStatsReads; days: EventStatDays; accounts: AccountsService }) {}

  @Query(() => EventStatsType, { description: 'Events of one name in a window: count, distinct customers and a sum, in total, per bucket and per value of a data property.' })
  async eventStats(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('eventName', () => String) eventName: string,
    @Arg('window', () => TimeWindowInput) window: TimeWindowInput,
    @Arg('sumProperty', () => String, { nullable: true }) sumProperty: string | undefined,
    @Arg('by', () => String, { nullable: true }) by: string | undefined,
    @Arg('where', () => [PropertyConditionInput], { nullable: true }) where: PropertyConditionInput[] | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<EventStatsType> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'customers_read');
    const question = { where: where ?? undefined, by: propertyName(by, 'by'), sumProperty: propertyName(sumProperty, 'sumProperty') };
    const resolved = await storeWindow(ctx, this.deps.accounts, storeId, window);
    // Daily, weekly and monthly series in the store's own zone read the day rollup once it is built.
    const storeZone = (await memoize(ctx, `store-time-zone:${storeId}`, () => this.deps.accounts.storeTimeZone(storeId))) ?? 'UTC';
    const dayZone = resolved.interval !== 'HOUR' && resolved.timeZone === storeZone ? await this.deps.days.readyZone(storeId, storeZone) : null;
    const rows = await this.deps.stats.stats(storeId, eventName, resolved, question, dayZone);
    const empty: EventSums = { count: 0, customers: 0, sum: question.sumProperty === undefined ? null : 0 };
    return {
      totals: measures(rows.totals),
      series: resolved.starts.map((start, i) => ({ start: new Date(start), measures: measures(rows.buckets.get(i) ?? empty) })),
      groups: topGroups(rows.groups, (g) => g.count).map((g) => ({ key: g.key, measures: measures(g) })),
    };
  }

  @Query(() => [String], { description: 'The names of the events the store has, alphabetically (what eventStats can be asked about).' })
  async eventNames(@Arg('storeId', () => ID) storeId: string, @Ctx() ctx: GraphQLContext): Promise<string[]> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'customers_read');
    return this.deps.stats.eventNames(storeId);
  }
}
