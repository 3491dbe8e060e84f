import { Arg, Ctx, ID, Query, Resolver } from 'type-graphql';
import { previousPeriod, type Window } from '../../platform/analytics/time-window.js';
import { resolveWindow, storeWindow, TimeWindowInput } from '../../platform/analytics/time-window.input.js';
import { AppError, isAppError } from '../../platform/errors.js';
import { authorizeStoreAccess } from '../../platform/graphql/authorize.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import type { PeerGraph } from '../../platform/graphql/peer-graphs.js';
import { check } from '../../platform/validation/index.js';
import type { SegmentDefinitionInput } from '../events/public.js';
import type { ReturnsResolverDeps } from './return.resolver.js';
import { ReturnFilterSchema } from './return.schemas.js';
import { ReturnStatsBasis, ReturnStatsComparison, ReturnStatsFilterInput } from './return-stats.input.js';
import type { Customers, ReturnStatsReads } from './return-stats.rows.js';
import { ReturnDimension, ReturnRateBasis, ReturnStatsType } from './return-stats.type.js';
import { loadReturnStatsCompared } from './return-stats.view.js';

const SEGMENT_CONTACTS = `query ReturnStatsSegment($storeId: ID!, $definition: SegmentDefinitionInput!) {
  segmentContacts(storeId: $storeId, definition: $definition) { emails phoneNumbers }
}`;

/** Dashboards' totals and series of returns (decisions sections 18 and 22, docs/analytics.md). */
@Resolver()
export class ReturnStatsResolver {
  constructor(private readonly deps: Pick<ReturnsResolverDeps, 'accounts'> & { stats: ReturnStatsReads; events: PeerGraph }) {}

  @Query(() => ReturnStatsType, { description: 'Returns in a window (by creation or by order date): totals, every bucket, the largest groups of a dimension, and the period before.' })
  async returnStats(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('window', () => TimeWindowInput) window: TimeWindowInput,
    @Arg('by', () => ReturnDimension, { nullable: true }) by: ReturnDimension | undefined,
    @Arg('filter', () => ReturnStatsFilterInput, { nullable: true }) filter: ReturnStatsFilterInput | undefined,
    @Arg('basis', () => ReturnStatsBasis, { nullable: true, defaultValue: ReturnStatsBasis.CREATED }) basis: ReturnStatsBasis | undefined,
    @Arg('compareTo', () => ReturnStatsComparison, { nullable: true }) compareTo: ReturnStatsComparison | undefined,
    @Ctx() ctx: GraphQLContext,
    @Arg('rateBasis', () => ReturnRateBasis, { nullable: true, description: 'What returnRate divides by (default ORDERED).' }) rateBasis: ReturnRateBasis | undefined,
  ): Promise<ReturnStatsType> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'returns_read');
    const { segment, ...returnFilter } = filter ?? {};
    const filters = check(ReturnFilterSchema, returnFilter, { prefix: '/filter', detail: 'A filter value is invalid.' });
    const current = await storeWindow(ctx, this.deps.accounts, storeId, window);
    let previous: Window | undefined;
    if (compareTo === ReturnStatsComparison.PREVIOUS_PERIOD) {
      const period = previousPeriod(current);
      previous = resolveWindow({ from: new Date(period.from), until: new Date(period.until), interval: current.interval, timeZone: current.timeZone } as TimeWindowInput, null);
    }
    const customers = segment ? await this.segmentCustomers(storeId, segment, ctx) : undefined;
    return loadReturnStatsCompared(this.deps.stats, storeId, current, previous, by ?? undefined, filters, { basis: basis ?? ReturnStatsBasis.CREATED, customers }, rateBasis ?? undefined);
  }

  /**
   * The segment's customers as the events subgraph evaluates it, asked through its graph with the
   * caller's credentials (so it needs customers_read too); its errors name the filter's argument.
   */
  private async segmentCustomers(storeId: string, segment: SegmentDefinitionInput, ctx: GraphQLContext): Promise<Customers> {
    try {
      // Through JSON: dates as the strings the other graph's variables take.
      const definition = JSON.parse(JSON.stringify(segment)) as unknown;
      const data = await this.deps.events.query<{ segmentContacts: { emails: string[]; phoneNumbers: string[] } }>(SEGMENT_CONTACTS, { storeId, definition }, ctx);
      return { emails: data.segmentContacts.emails, phoneNumbers: data.segmentContacts.phoneNumbers };
    } catch (err) {
      if (!isAppError(err) || !err.errors) throw err;
      const errors = err.errors.map((e) => ({ ...e, pointer: e.pointer.replace(/^\/(input\/)?definition/, '/filter/segment') }));
      throw new AppError(err.type, err.slug, err.message.replace(/\bdefinition\b/, 'filter.segment'), { errors, headers: err.headers });
    }
  }
}
