import DataLoader from 'dataloader';
import { JSONScalar as GraphQLJSON } from '../../platform/graphql/scalars.js';
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, FieldResolver, ID, Info, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { selects } from '../../platform/graphql/selection.js';
import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import { hasScope, scopeForbidden, type Scope } from '../../platform/api/auth.js';
import { notFound } from '../../platform/errors.js';
import { authorizeStoreAccess, visible } from '../../platform/graphql/authorize.js';
import { toConnection, type Connection } from '../../platform/graphql/connection.js';
import { memoize, type GraphQLContext } from '../../platform/graphql/context.js';
import { batchById } from '../../platform/graphql/loaders.js';
import { pageRequest } from '../../platform/api/pagination.js';
import { check } from '../../platform/validation/index.js';
import { restOrder } from './order.json.js';
import type { OrderReads } from './order.rows.js';
import type { OrderService } from './order.service.js';
import { OrderType } from './order.type.js';
import { OrderViews, type OrderView } from './order.view.js';
import type { ReturnChanges } from './return-changes.service.js';
import type { ReturnCreation } from './return-creation.service.js';
import { ReturnFilterInput, ShipmentEventInput } from './return.input.js';
import { restReturn, type RestReturnList } from './return.json.js';
import type { CommentRow, ReturnReads } from './return.rows.js';
import type { ReturnStatus } from './return.rules.js';
import { ReturnFilterSchema } from './return.schemas.js';
import {
  CreateReturnPayloadType,
  ReturnCommentType,
  InventoryItemReference,
  ProductReference,
  ReturnConnection,
  ReturnItemType,
  ReturnStatusEnum,
  ReturnTimelineEntryType,
  ReturnType,
} from './return.type.js';
import { ReturnViews, type ReturnItemView, type ReturnView } from './return.view.js';
import type { StoreSettingsService } from './store-settings.service.js';

/** What every resolver of the subgraph is built with (index.ts builds it once per schema). */
export interface ReturnsResolverDeps {
  reads: ReturnReads;
  orderReads: OrderReads;
  creation: ReturnCreation;
  changes: ReturnChanges;
  orders: OrderService;
  settings: StoreSettingsService;
  accounts: AccountsService;
}

/** Per-request loaders: one round of queries for all the returns (or orders) a response needs. */
export function returnLoaders(ctx: GraphQLContext, deps: Pick<ReturnsResolverDeps, 'reads' | 'orderReads'>) {
  return memoize(ctx, 'returns.loaders', () => {
    const [returns, orders] = [new ReturnViews(deps.reads), new OrderViews(deps.orderReads)];
    return {
      returns: new DataLoader<string, ReturnView | null>(batchById((ids) => returns.byIds(ids))),
      orders: new DataLoader<string, OrderView | null>(batchById((ids) => orders.byIds(ids))),
    };
  });
}

/** A return the caller may act on: invisible ones do not exist (404); then the scope (403). */
async function authorizedReturn(ctx: GraphQLContext, deps: ReturnsResolverDeps, returnId: string, scope: Scope): Promise<ReturnView> {
  const view = visible(ctx, await returnLoaders(ctx, deps).returns.load(returnId));
  if (!view) throw notFound('return-not-found', `Return ${returnId} was not found.`);
  if (!hasScope(ctx.auth, scope)) throw scopeForbidden(scope);
  return view;
}

@Resolver(() => ReturnConnection)
export class ReturnPageResolver {
  constructor(private readonly deps: ReturnsResolverDeps) {}

  @FieldResolver(() => String, {
    description: 'This page as the REST list shows it, as JSON text: {"returns": [...], "orders": [the orders of these returns]}.',
  })
  async restJson(@Root() page: Connection<ReturnView>, @Ctx() ctx: GraphQLContext): Promise<string> {
    const returns = page.edges.map((e) => e.node);
    const orders = await returnLoaders(ctx, this.deps).orders.loadMany([...new Set(returns.map((r) => r.orderId))]);
    const shown = orders.filter((o): o is OrderView => Boolean(o) && !(o instanceof Error));
    const body: RestReturnList = { returns: returns.map(restReturn), orders: shown.map(restOrder) };
    return JSON.stringify(body);
  }
}

@Resolver(() => ReturnType)
export class ReturnResolver {
  private readonly views: ReturnViews;

  constructor(private readonly deps: ReturnsResolverDeps) {
    this.views = new ReturnViews(deps.reads);
  }

  @Query(() => ReturnType, { nullable: true, description: 'A return by id; null when absent or in another account.' })
  async return(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<ReturnView | null> {
    const view = visible(ctx, await returnLoaders(ctx, this.deps).returns.load(id));
    if (view && !hasScope(ctx.auth, 'returns_read')) throw scopeForbidden('returns_read');
    return view;
  }

  @Query(() => ReturnConnection, { description: "A store's returns, most recently updated first." })
  async returns(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Arg('filter', () => ReturnFilterInput, { nullable: true }) filter: ReturnFilterInput | undefined,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<ReturnView>> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'returns_read');
    const filters = check(ReturnFilterSchema, { ...filter }, { prefix: '/filter', detail: 'A filter value is invalid.' });
    const page = await this.views.list(storeId, filters, pageRequest(first, after, { list: 'returns', storeId, ...filters }, selects(info, 'totalCount')));
    for (const view of page.items) returnLoaders(ctx, this.deps).returns.prime(view.id, view);
    return toConnection(page);
  }

  @FieldResolver(() => OrderType)
  async order(@Root() ret: ReturnView, @Ctx() ctx: GraphQLContext): Promise<OrderView | null> {
    return ret.prefetchedOrder ?? returnLoaders(ctx, this.deps).orders.load(ret.orderId);
  }

  @FieldResolver(() => String, {
    description: 'This return exactly as REST API v2.2 shows it, as JSON text: built once here, spliced into responses by the REST facade as is.',
  })
  restJson(@Root() ret: ReturnView): string {
    return JSON.stringify(restReturn(ret));
  }

  @FieldResolver(() => [ReturnTimelineEntryType], { description: 'What was done to the return, oldest first.' })
  async timeline(@Root() ret: ReturnView) {
    return this.deps.reads.timeline(ret.id);
  }

  @FieldResolver(() => [ReturnCommentType], { description: 'Comments, oldest first (they also appear in notes).' })
  async comments(@Root() ret: ReturnView): Promise<CommentRow[]> {
    return this.deps.reads.comments(ret.id);
  }

  @Mutation(() => CreateReturnPayloadType, {
    description: 'Creates a return. `input` is the REST body ({data, options}); with an idempotency key a repeat replays the first result.',
  })
  async createReturn(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => GraphQLJSON) input: unknown,
    @Arg('idempotencyKey', () => String, { nullable: true }) idempotencyKey: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ) {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'returns_write');
    const { view, replayed } = await this.deps.creation.create(storeId, input, idempotencyKey);
    return { return: view, externalRMAResponses: [], replayed };
  }

  @Mutation(() => ReturnType, { description: 'Moves a return to any status the transition table allows (409 otherwise).' })
  async updateReturnStatus(
    @Arg('returnId', () => ID) returnId: string,
    @Arg('status', () => ReturnStatusEnum) status: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<ReturnView> {
    await authorizedReturn(ctx, this.deps, returnId, 'returns_write');
    return this.deps.changes.changeStatus(returnId, status as ReturnStatus);
  }

  @Mutation(() => ReturnType, { description: 'Approves a return awaiting approval (pre_shipment -> open).' })
  async approveReturn(@Arg('returnId', () => ID) returnId: string, @Ctx() ctx: GraphQLContext): Promise<ReturnView> {
    await authorizedReturn(ctx, this.deps, returnId, 'returns_write');
    return this.deps.changes.approve(returnId);
  }

  @Mutation(() => ReturnType, { description: 'Records a carrier tracking event (open -> in_transit -> delivered).' })
  async recordReturnShipmentEvent(
    @Arg('returnId', () => ID) returnId: string,
    @Arg('input', () => ShipmentEventInput) input: ShipmentEventInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<ReturnView> {
    await authorizedReturn(ctx, this.deps, returnId, 'returns_write');
    return this.deps.changes.recordShipmentEvent(returnId, { ...input });
  }

  @Mutation(() => ReturnCommentType, { description: 'Adds a comment: a message, an image (base64), or both.' })
  async addReturnComment(
    @Arg('returnId', () => ID) returnId: string,
    @Arg('message', () => String, { nullable: true }) message: string | undefined,
    @Arg('image', () => String, { nullable: true, description: 'A picture as base64 text.' }) image: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CommentRow> {
    await authorizedReturn(ctx, this.deps, returnId, 'returns_write');
    return this.deps.changes.addComment(returnId, message ?? null, null, image ?? null);
  }

  @Mutation(() => ReturnType, {
    description:
      "Processes a return: queues its completion (restock, webhooks), the same completion as the compatibility API's process. `input` is the REST body ({products: [{_id, reject}], customerNotes}), kept on the return's timeline; rejected items get the outcome rejected.",
  })
  async processReturn(@Arg('returnId', () => ID) returnId: string, @Arg('input', () => GraphQLJSON) input: unknown, @Ctx() ctx: GraphQLContext): Promise<ReturnView> {
    const view = await authorizedReturn(ctx, this.deps, returnId, 'returns_write');
    return this.deps.changes.process(view.storeId, returnId, input);
  }
}

@Resolver(() => ReturnItemType)
export class ReturnItemResolver {
  @FieldResolver(() => ProductReference, { nullable: true, description: "The product of the item's sku in this store (inventory subgraph)." })
  product(@Root() item: ReturnItemView): ProductReference | null {
    return item.sku ? { storeId: item.storeId, sku: item.sku } : null;
  }

  @FieldResolver(() => InventoryItemReference, { nullable: true, description: 'The RETURN-kind stock item of the sku, where restocked units go (inventory subgraph).' })
  inventoryItem(@Root() item: ReturnItemView): InventoryItemReference | null {
    return item.sku ? { storeId: item.storeId, sku: item.sku, kind: 'RETURN' } : null;
  }
}
