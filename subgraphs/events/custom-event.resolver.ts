import DataLoader from 'dataloader';
import { JSONScalar as GraphQLJSON } from '../../platform/graphql/scalars.js';
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, FieldResolver, ID, Info, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { selects } from '../../platform/graphql/selection.js';
import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import { hasScope, requireAdmin, scopeForbidden } from '../../platform/api/auth.js';
import { authorizeStoreAccess, visible } from '../../platform/graphql/authorize.js';
import { toConnection, type Connection } from '../../platform/graphql/connection.js';
import { memoize, type GraphQLContext } from '../../platform/graphql/context.js';
import { batchById } from '../../platform/graphql/loaders.js';
import { pageRequest } from '../../platform/api/pagination.js';
import type { PgBoss } from '../../platform/jobs/queue.js';
import { listDeadLetters, retryDeadLetters } from '../../platform/jobs/dead-letters.js';
import type { EventAcceptance } from './event-acceptance.service.js';
import { CUSTOM_EVENTS_QUEUE, type CustomEventJob } from './event-ingestion.service.js';
import { SEGMENTABLE_TYPES, type PropertyType } from './custom-event.rules.js';
import { eventPayload, type CustomEventService } from './custom-event.service.js';
import type { CustomEventRow } from './custom-event.rows.js';
import {
  BulkEventsAcceptanceType,
  CustomEventAcceptanceType,
  CustomEventConnection,
  CustomEventType,
  DeadLetteredCustomEventType,
  EventPropertyType,
} from './custom-event.type.js';
import { customerLoader } from './customers/customer.resolver.js';
import type { CustomerService } from './customers/customer.service.js';
import type { CustomerRow } from './customers/customer.rows.js';
import { CustomerType } from './customers/customer.type.js';

export interface CustomEventResolverDeps {
  events: CustomEventService;
  customers: CustomerService;
  acceptance: EventAcceptance;
  accounts: AccountsService;
  boss: PgBoss;
}

function eventLoader(ctx: GraphQLContext, events: CustomEventService) {
  return memoize(ctx, 'events.events', () => new DataLoader<string, CustomEventRow | null>(batchById((ids) => events.findByIds(ids))));
}

@Resolver(() => CustomEventType)
export class CustomEventResolver {
  constructor(private readonly deps: CustomEventResolverDeps) {}

  @Mutation(() => CustomEventAcceptanceType, { description: 'Queues one custom event (the body of POST /stores/{storeId}/events); answers once the job is committed.' })
  async createCustomEvent(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('event', () => GraphQLJSON) event: unknown,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CustomEventAcceptanceType> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'customer_events_write');
    return { queued: true, rateLimit: await this.deps.acceptance.one(storeId, event) };
  }

  @Mutation(() => BulkEventsAcceptanceType, { description: 'Queues up to 100 events ({events: [...]}); each is validated alone, the request counts once against the rate limit.' })
  async createCustomEvents(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('body', () => GraphQLJSON) body: unknown,
    @Ctx() ctx: GraphQLContext,
  ): Promise<BulkEventsAcceptanceType> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'customer_events_write');
    return this.deps.acceptance.bulk(storeId, body);
  }

  @Query(() => CustomEventConnection, { description: "A store's events, newest first, by name and time range (since inclusive, until exclusive)." })
  async customEvents(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('eventName', () => String, { nullable: true }) eventName: string | undefined,
    @Arg('since', () => Date, { nullable: true }) since: Date | undefined,
    @Arg('until', () => Date, { nullable: true }) until: Date | undefined,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<CustomEventRow>> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'customers_read');
    const filters = { eventName, since, until };
    const request = pageRequest(first, after, { list: 'store-events', storeId, eventName, since: since?.toISOString(), until: until?.toISOString() }, selects(info, 'totalCount'));
    return toConnection(await this.deps.events.listForStore(storeId, filters, request));
  }

  @Query(() => CustomEventType, { nullable: true, description: 'One stored event; null when absent or in another account.' })
  async customEvent(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<CustomEventRow | null> {
    const row = visible(ctx, await eventLoader(ctx, this.deps.events).load(id));
    if (row && !hasScope(ctx.auth, 'customers_read')) throw scopeForbidden('customers_read');
    return row;
  }

  @Query(() => [EventPropertyType], { description: 'The property catalogue: each (event name, key, type) seen in the store.' })
  async eventProperties(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('eventName', () => String, { nullable: true }) eventName: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<EventPropertyType[]> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'customers_read');
    const rows = await this.deps.events.properties(storeId, eventName);
    return rows.map((r) => ({ ...r, segmentable: SEGMENTABLE_TYPES.has(r.type as PropertyType) }));
  }

  @FieldResolver(() => CustomerType, { nullable: true })
  async customer(@Root() event: CustomEventRow, @Ctx() ctx: GraphQLContext): Promise<CustomerRow | null> {
    return customerLoader(ctx, this.deps.customers).load(event.customerId);
  }

  @FieldResolver(() => String, { description: 'The event as webhooks and customer exports show it, as JSON text.' })
  restJson(@Root() event: CustomEventRow): string {
    return JSON.stringify(eventPayload(event));
  }

  @Query(() => [DeadLetteredCustomEventType], { description: 'Admin token only: custom event jobs that kept failing, oldest first.' })
  async deadLetteredCustomEvents(
    @Arg('first', () => Int, { nullable: true, defaultValue: 100 }) first: number,
    @Ctx() ctx: GraphQLContext,
  ): Promise<DeadLetteredCustomEventType[]> {
    requireAdmin(ctx.auth);
    const letters = await listDeadLetters(this.deps.boss, CUSTOM_EVENTS_QUEUE, Math.max(1, Math.min(first, 500)));
    return letters.map((letter) => {
      const job = letter.data as Partial<CustomEventJob> | null;
      return {
        id: letter.id,
        eventId: job?.eventId ?? null,
        storeId: job?.storeId ?? null,
        eventName: typeof job?.event?.eventName === 'string' ? job.event.eventName : null,
        job,
        error: letter.error,
        deadLetteredAt: letter.deadLetteredAt,
      };
    });
  }

  @Mutation(() => Int, { description: 'Admin token only: moves dead-lettered custom events (all, or the given job ids) back to processing. Returns how many moved.' })
  async retryDeadLetteredCustomEvents(@Arg('ids', () => [ID], { nullable: true }) ids: string[] | undefined, @Ctx() ctx: GraphQLContext): Promise<number> {
    requireAdmin(ctx.auth);
    // Processing is idempotent on the event id, so a retried event never applies twice.
    return retryDeadLetters(this.deps.boss, CUSTOM_EVENTS_QUEUE, ids);
  }
}

export function customEventReferences(events: CustomEventService) {
  return {
    CustomEvent: async (ref: { id: string }, ctx: GraphQLContext) => visible(ctx, await eventLoader(ctx, events).load(ref.id)),
  };
}
