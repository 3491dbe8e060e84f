import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, FieldResolver, Info, Int, Resolver, Root } from 'type-graphql';
import { hasScope } from '../../../platform/api/auth.js';
import { pageRequest } from '../../../platform/api/pagination.js';
import { toConnection, type Connection } from '../../../platform/graphql/connection.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { selects } from '../../../platform/graphql/selection.js';
import type { CustomerRow } from '../customers/customer.rows.js';
import { CustomerType } from '../customers/customer.type.js';
import type { TimelineEntryView, TimelineReads } from './timeline.view.js';
import { TimelineConnection } from './timeline.type.js';

/**
 * `Customer.timeline` (decisions section 22): what the customer did, what happened to their
 * returns, and what was sent to them, newest first in one connection. The customer was already
 * found for a caller with customers_read; messages are in it only for a caller with flows_read.
 * An erased customer has no profile left, so no timeline.
 */
@Resolver(() => CustomerType)
export class CustomerTimelineResolver {
  constructor(private readonly deps: { timeline: TimelineReads }) {}

  @FieldResolver(() => TimelineConnection, { description: "The customer's events, their returns' status changes (with the return) and the messages sent to them, newest first; `since` inclusive, `until` exclusive." })
  async timeline(
    @Root() customer: CustomerRow,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Arg('since', () => Date, { nullable: true }) since: Date | undefined,
    @Arg('until', () => Date, { nullable: true }) until: Date | undefined,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<TimelineEntryView>> {
    const messages = hasScope(ctx.auth, 'flows_read');
    const filters = { list: 'customer-timeline', customerId: customer.id, since: since?.toISOString(), until: until?.toISOString(), messages };
    const request = pageRequest(first, after, filters, selects(info, 'totalCount'));
    return toConnection(await this.deps.timeline.page(customer.id, { since: since ?? undefined, until: until ?? undefined, messages }, request));
  }
}
