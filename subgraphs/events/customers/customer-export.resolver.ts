import { createHash } from 'node:crypto';
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, FieldResolver, ID, Info, Int, Query, Resolver, Root } from 'type-graphql';
import type { AccountsService } from '../../../platform/accounts/accounts.service.js';
import { authorizeStoreAccess } from '../../../platform/graphql/authorize.js';
import { toConnection, type Connection } from '../../../platform/graphql/connection.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { selects } from '../../../platform/graphql/selection.js';
import { pageRequest, type Page } from '../../../platform/api/pagination.js';
import { CustomerIdentifierInput, identifierOf } from '../../../platform/privacy/privacy.input.js';
import { identifierPattern, subjectOf } from '../../../platform/privacy/subject.js';
import { CustomEventConnection } from '../custom-event.type.js';
import type { CustomEventService } from '../custom-event.service.js';
import type { CustomEventRow } from '../custom-event.rows.js';
import { CustomerExportType } from './customer-export.type.js';
import type { CustomerService } from './customer.service.js';
import type { FlowRunRow, FlowService, MessageRow } from '../flows/flow.service.js';
import { FlowRunConnection, MessageConnection } from '../flows/flow.type.js';

export interface CustomerExportResolverDeps {
  customers: CustomerService;
  events: CustomEventService;
  flows: FlowService;
  accounts: AccountsService;
}

const NOTHING = { items: [], hasNextPage: false, endCursor: null } satisfies Page<never>;

/** An access request's data in the events subgraph (the returns subgraph adds orders and returns to the same type). */
@Resolver(() => CustomerExportType)
export class CustomerExportResolver {
  constructor(private readonly deps: CustomerExportResolverDeps) {}

  @Query(() => CustomerExportType, { description: 'Everything the store holds about one customer, by id, email or phone number (scope privacy_read).' })
  async customerExport(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('by', () => CustomerIdentifierInput) by: CustomerIdentifierInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CustomerExportType> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'privacy_read');
    const given = identifierOf(by);
    const profile = await this.deps.customers.lookup(storeId, { id: given.customerId, email: given.email, phoneNumber: given.phoneNumber });
    const email = profile?.email ?? given.email ?? null;
    const phoneNumber = profile?.phoneNumber ?? given.phoneNumber ?? null;
    const id = `cex_${createHash('sha256').update(JSON.stringify([storeId, profile?.id ?? given.customerId ?? null, email, phoneNumber])).digest('base64url')}`;
    return { id, storeId, customerId: profile?.id ?? null, email, phoneNumber, customer: profile };
  }

  @FieldResolver(() => CustomEventConnection, { description: "The customer's events, newest first." })
  async events(
    @Root() exported: CustomerExportType,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<CustomEventRow>> {
    const request = pageRequest(first, after, { list: 'export-events', customerId: exported.customerId }, selects(info, 'totalCount'));
    return toConnection(exported.customerId ? await this.deps.events.listForCustomer(exported.customerId, undefined, request) : NOTHING);
  }

  @FieldResolver(() => CustomEventConnection, { description: "Other customers' events whose properties mention the customer's email or phone number (a referral, say), newest first." })
  async mentions(
    @Root() exported: CustomerExportType,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<CustomEventRow>> {
    const pattern = identifierPattern(subjectOf({ email: exported.email ?? undefined, phoneNumber: exported.phoneNumber ?? undefined }));
    const request = pageRequest(first, after, { list: 'export-mentions', export: exported.id }, selects(info, 'totalCount'));
    return toConnection(pattern ? await this.deps.events.listMentioning(exported.storeId, exported.customerId, pattern, request) : NOTHING);
  }

  @FieldResolver(() => FlowRunConnection, { description: "The customer's flow runs, newest first." })
  async flowRuns(
    @Root() exported: CustomerExportType,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<FlowRunRow>> {
    const request = pageRequest(first, after, { list: 'export-flow-runs', customerId: exported.customerId }, selects(info, 'totalCount'));
    return toConnection(exported.customerId ? await this.deps.flows.runs({ customerId: exported.customerId }, request) : NOTHING);
  }

  @FieldResolver(() => MessageConnection, { description: 'What flows sent (or recorded) to the customer, newest first.' })
  async messages(
    @Root() exported: CustomerExportType,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<MessageRow>> {
    const request = pageRequest(first, after, { list: 'export-messages', customerId: exported.customerId }, selects(info, 'totalCount'));
    return toConnection(exported.customerId ? await this.deps.flows.messages({ customerId: exported.customerId }, request) : NOTHING);
  }
}
