import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, FieldResolver, ID, Info, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { AccountsService } from '../../../platform/accounts/accounts.service.js';
import { authorizeStoreAccess } from '../../../platform/graphql/authorize.js';
import { toConnection, type Connection } from '../../../platform/graphql/connection.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { SegmentType } from '../custom-event.type.js';
import type { CustomerRow } from '../customers/customer.rows.js';
import { CustomerConnection } from '../customers/customer.type.js';
import { CreateSegmentInput, SegmentDefinitionInput } from './segment.input.js';
import type { SegmentRow, SegmentService } from './segment.service.js';
import { SegmentContactsType } from './segment.type.js';
import { selects } from '../../../platform/graphql/selection.js';

export interface SegmentResolverDeps {
  segments: SegmentService;
  accounts: AccountsService;
}

@Resolver(() => SegmentType)
export class SegmentResolver {
  constructor(private readonly deps: SegmentResolverDeps) {}

  @Query(() => CustomerConnection, { description: 'Customers matching a segment definition, evaluated in the database; newest customers first.' })
  async segmentMembers(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('definition', () => SegmentDefinitionInput) definition: SegmentDefinitionInput,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<CustomerRow>> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'customers_read');
    return toConnection(await this.deps.segments.members(storeId, definition, first, after, selects(info, 'totalCount')));
  }

  @Query(() => SegmentContactsType, {
    description: "The emails and phone numbers of a segment definition's members: how other subgraphs find the members' records (returnStats' segment filter). At most 250,000 members.",
  })
  async segmentContacts(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('definition', () => SegmentDefinitionInput) definition: SegmentDefinitionInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<SegmentContactsType> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'customers_read');
    return this.deps.segments.contacts(storeId, definition);
  }

  @Mutation(() => SegmentType, { description: 'Saves a segment definition under a name.' })
  async createSegment(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => CreateSegmentInput) input: CreateSegmentInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<SegmentRow> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'customers_read');
    return this.deps.segments.create(storeId, input.name, input.definition);
  }

  @Query(() => [SegmentType], { description: "The store's saved segments, newest first." })
  async segments(@Arg('storeId', () => ID) storeId: string, @Ctx() ctx: GraphQLContext): Promise<SegmentRow[]> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'customers_read');
    return this.deps.segments.list(storeId);
  }

  @FieldResolver(() => Int, { description: 'How many customers match now.' })
  async memberCount(@Root() segment: SegmentRow): Promise<number> {
    return this.deps.segments.count(segment.storeId, segment.definition);
  }

  @FieldResolver(() => CustomerConnection, { description: 'The customers matching now, newest first.' })
  async members(
    @Root() segment: SegmentRow,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<CustomerRow>> {
    return toConnection(await this.deps.segments.members(segment.storeId, segment.definition, first, after, selects(info, 'totalCount')));
  }
}

