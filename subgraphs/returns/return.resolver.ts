import DataLoader from 'dataloader';
import { JSONScalar as GraphQLJSON } from '../../platform/graphql/scalars.js';
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Directive, FieldResolver, ID, Info, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { selects } from '../../platform/graphql/selection.js';
import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import type { Scope } from '../../platform/accounts/credentials.js';
import { hasScope, scopeForbidden } from '../../platform/auth.js';
import { notFound } from '../../platform/errors.js';
import { authorizeStoreAccess, visible } from '../../platform/graphql/authorize.js';
import { toConnection, type Connection } from '../../platform/graphql/connection.js';
import { memoize, type GraphQLContext } from '../../platform/graphql/context.js';
import { batchById } from '../../platform/graphql/loaders.js';
import { filterDigest } from '../../platform/cursor.js';
import { pageRequest, type Page } from '../../platform/pagination.js';
import { check } from '../../platform/validation/index.js';
import type { OrderService } from './order.service.js';
import { OrderType } from './order.type.js';
import { checkLookup, type ConditionalChange, type ReturnChanges } from './return.changes.js';
import type { ReturnCreation } from './return.creation.js';
import { addressOrNull } from './return.creation.js';
import { ReturnConditionInput, ReturnFilterInput, ReturnLookupInput, ReturnWindowInput, ShipmentEventInput, StoreSettingsInput } from './return.input.js';
import { WINDOW_PAGE_SIZE, type ReturnReads } from './return.reads.js';
import { returnRecord } from './return.record.js';
import type { ReturnStatus } from './return.status.js';
import { ReturnFilterSchema, ReturnWindowSchema, StoreSettingsSchema } from './returns.schemas.js';
import {
  ReturnWindowPageInfoType as ReturnWindowPageInfoTypeRef,
  CreateReturnPayloadType,
  CustomerReference,
  ReturnCommentType,
  InventoryItemReference,
  ProductReference,
  ReturnConnection,
  ReturnItemType,
  ReturnChangeType,
  ReturnStatusEnum,
  ReturnTimelineEntryType,
  ReturnType,
  ReturnWindowPageType,
  StoreSettingsType,
} from './return.type.js';
import { restOrder, restReturn, type CommentRow, type RestReturnList, type OrderView, type ReturnItemView, type ReturnView } from './return.view.js';
import type { StoreSettings, StoreSettingsService } from './store-settings.service.js';

export interface ReturnsResolverDeps {
  reads: ReturnReads;
  creation: ReturnCreation;
  changes: ReturnChanges;
  orders: OrderService;
  settings: StoreSettingsService;
  accounts: AccountsService;
}

/** Per-request loaders: one round of queries for all the returns (or orders) a response needs. */
export function returnLoaders(ctx: GraphQLContext, deps: Pick<ReturnsResolverDeps, 'reads' | 'orders'>) {
  return memoize(ctx, 'returns.loaders', () => ({
    returns: new DataLoader<string, ReturnView | null>(batchById((ids) => deps.reads.views(ids))),
    orders: new DataLoader<string, OrderView | null>(batchById((ids) => deps.orders.views(ids))),
  }));
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

/** What `returnsWindow` resolves to: the page of views; its fields are computed when asked for. */
export interface WindowPage {
  page: Page<ReturnView>;
}

@Resolver(() => ReturnWindowPageType)
export class ReturnWindowPageResolver {
  @FieldResolver(() => [ReturnType])
  nodes(@Root() { page }: WindowPage): ReturnView[] {
    return page.items;
  }

  @FieldResolver(() => String, { description: "The page's returns as a JSON array of return records (Return.recordJson), in the page's order." })
  recordsJson(@Root() { page }: WindowPage): string {
    return JSON.stringify(page.items.map(returnRecord));
  }

  @FieldResolver(() => ReturnWindowPageInfoTypeRef)
  pageInfo(@Root() { page }: WindowPage) {
    return { hasNextPage: page.hasNextPage, hasPreviousPage: page.hasPreviousPage ?? false, startCursor: page.startCursor ?? null, endCursor: page.endCursor };
  }
}

/** The result of a conditional change as the GraphQL type shows it. */
function changeResult(change: ConditionalChange) {
  return { applied: change.applied, return: change.view };
}

@Resolver(() => ReturnType)
export class ReturnResolver {
  constructor(private readonly deps: ReturnsResolverDeps) {}

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
    const page = await this.deps.reads.list(storeId, filters, pageRequest(first, after, { list: 'returns', storeId, ...filters }, selects(info, 'totalCount')));
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

  @FieldResolver(() => String, {
    description: "This return's facts as one flat JSON document (ids and numeric ids, status, times, shipment, customer, order, items with their order lines' amounts), for API surfaces that map returns to their own formats.",
  })
  recordJson(@Root() ret: ReturnView): string {
    return JSON.stringify(returnRecord(ret));
  }

  @FieldResolver(() => [ReturnTimelineEntryType], { description: 'What was done to the return, oldest first.' })
  async timeline(@Root() ret: ReturnView) {
    return this.deps.reads.timeline(ret.id);
  }

  @Query(() => ReturnType, { nullable: true, description: 'A return of the store found by id, numeric id, order name or order numeric id (an order: its newest return); null when none.' })
  async lookupReturn(@Arg('storeId', () => ID) storeId: string, @Arg('by', () => ReturnLookupInput) by: ReturnLookupInput, @Ctx() ctx: GraphQLContext): Promise<ReturnView | null> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'returns_read');
    const view = await this.deps.reads.lookup(storeId, checkLookup({ ...by }));
    if (view) returnLoaders(ctx, this.deps).returns.prime(view.id, view);
    return view;
  }

  @Query(() => ReturnWindowPageType, {
    description: "A store's returns created (or last updated) in [from, until), newest first on that time, meeting the condition; paged forwards (after) or backwards (before).",
  })
  async returnsWindow(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('window', () => ReturnWindowInput) window: ReturnWindowInput,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Arg('before', () => String, { nullable: true }) before: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<WindowPage> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'returns_read');
    const input = check(
      ReturnWindowSchema,
      { ...window, condition: window.condition ? { ...window.condition, awaitingShipment: window.condition.awaitingShipment ? { ...window.condition.awaitingShipment } : undefined } : undefined },
      { prefix: '/window', detail: 'The window is invalid.' },
    );
    // A cursor is bound to the window and the condition, except the awaiting-shipment cutoff: callers derive it
    // from the clock (an age), so it moves between the pages of one walk and must not invalidate its cursors.
    const condition = input.condition && { statuses: input.condition.statuses, awaiting: input.condition.awaitingShipment?.is };
    const filters = { list: 'returns-window', storeId, field: input.field, from: input.from, until: input.until, condition: condition ? JSON.stringify(condition) : undefined };
    const page = await this.deps.reads.window(storeId, input, pageRequest(first, after, filters, false, { before, size: WINDOW_PAGE_SIZE }));
    for (const view of page.items) returnLoaders(ctx, this.deps).returns.prime(view.id, view);
    return { page };
  }

  @Mutation(() => ReturnChangeType, { description: 'Moves the return to `status` if it meets `onlyIf` (applied: false otherwise); a transition the table forbids is 409.' })
  async updateReturnStatusIf(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('return', () => ReturnLookupInput) lookup: ReturnLookupInput,
    @Arg('status', () => ReturnStatusEnum) status: string,
    @Arg('onlyIf', () => ReturnConditionInput, { nullable: true }) onlyIf: ReturnConditionInput | undefined,
    @Ctx() ctx: GraphQLContext,
  ) {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'returns_write');
    return changeResult(await this.deps.changes.changeStatusIf(storeId, { ...lookup }, status as ReturnStatus, conditionArg(onlyIf)));
  }

  @Mutation(() => ReturnChangeType, {
    description: 'Queues the completion of the return if it meets `onlyIf`: a job completes it (restock, webhooks) right after. `detail` (any JSON) is kept on its timeline.',
  })
  async queueReturnCompletion(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('return', () => ReturnLookupInput) lookup: ReturnLookupInput,
    @Arg('onlyIf', () => ReturnConditionInput, { nullable: true }) onlyIf: ReturnConditionInput | undefined,
    @Arg('detail', () => GraphQLJSON, { nullable: true }) detail: unknown,
    @Ctx() ctx: GraphQLContext,
  ) {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'returns_write');
    return changeResult(await this.deps.changes.queueCompletion(storeId, { ...lookup }, conditionArg(onlyIf), detail ?? null));
  }

  @Mutation(() => ReturnChangeType, {
    description:
      'Takes the items of these order lines (numeric ids) off the return at once, if it meets `onlyIf`. A return left without items is reset (deleted); otherwise `completeAfter` queues its completion. A line without an item on the return is 400 items-not-in-return.',
  })
  async removeReturnItems(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('return', () => ReturnLookupInput) lookup: ReturnLookupInput,
    @Arg('orderLineNumericIds', () => [ID]) lines: string[],
    @Arg('onlyIf', () => ReturnConditionInput, { nullable: true }) onlyIf: ReturnConditionInput | undefined,
    @Arg('completeAfter', () => Boolean, { nullable: true }) completeAfter: boolean | undefined,
    @Ctx() ctx: GraphQLContext,
  ) {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'returns_write');
    return changeResult(await this.deps.changes.removeItems(storeId, { ...lookup }, lines, conditionArg(onlyIf), completeAfter ?? false));
  }

  @Mutation(() => ReturnCommentType, { description: 'Adds a comment to a return found in the store; with an idempotency key, a repeat answers the first comment.' })
  async commentOnReturn(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('return', () => ReturnLookupInput) lookup: ReturnLookupInput,
    @Arg('message', () => String) message: string,
    @Arg('idempotencyKey', () => String, { nullable: true }) idempotencyKey: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CommentRow> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'returns_write');
    const returnId = await this.deps.changes.find(storeId, { ...lookup });
    return this.deps.changes.addComment(returnId, message, idempotencyKey);
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

/** A condition argument as a plain object (type-graphql builds input class instances). */
function conditionArg(onlyIf: ReturnConditionInput | undefined): unknown {
  if (!onlyIf) return null;
  return { ...onlyIf, ...(onlyIf.awaitingShipment ? { awaitingShipment: { ...onlyIf.awaitingShipment } } : {}) };
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

@Resolver(() => OrderType)
export class OrderResolver {
  constructor(private readonly deps: ReturnsResolverDeps) {}

  @Query(() => OrderType, { nullable: true, description: 'An order by id; null when absent or in another account.' })
  async order(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<OrderView | null> {
    const view = visible(ctx, await returnLoaders(ctx, this.deps).orders.load(id));
    if (view && !hasScope(ctx.auth, 'returns_read')) throw scopeForbidden('returns_read');
    return view;
  }

  @Mutation(() => OrderType, { description: 'Creates or updates an order by (provider, external id). `input` is the order object of the custom orders endpoint plus `provider` (default custom).' })
  async upsertOrder(@Arg('storeId', () => ID) storeId: string, @Arg('input', () => GraphQLJSON) input: unknown, @Ctx() ctx: GraphQLContext): Promise<OrderView> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'orders_write');
    return (await this.deps.orders.upsert(storeId, input)).view;
  }

  @FieldResolver(() => String, { description: 'This order exactly as REST API v2.2 shows it beside a return, as JSON text.' })
  restJson(@Root() order: OrderView): string {
    return JSON.stringify(restOrder(order));
  }

  @FieldResolver(() => ReturnConnection, { description: 'Returns made against this order, most recently updated first.' })
  async returns(
    @Root() order: OrderView,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<ReturnView>> {
    return toConnection(await this.deps.reads.listForOrder(order.id, pageRequest(first, after, { list: 'order-returns', orderId: order.id }, selects(info, 'totalCount'))));
  }
}

@Resolver(() => StoreSettingsType)
export class StoreSettingsResolver {
  constructor(private readonly deps: ReturnsResolverDeps) {}

  @Query(() => StoreSettingsType)
  async storeSettings(@Arg('storeId', () => ID) storeId: string, @Ctx() ctx: GraphQLContext): Promise<StoreSettings> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'returns_read');
    return this.deps.settings.get(storeId);
  }

  @Mutation(() => StoreSettingsType, { description: 'Sets the fields given; omitted ones keep their value.' })
  async updateStoreSettings(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => StoreSettingsInput) input: StoreSettingsInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<StoreSettings> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'returns_write');
    const settings = check(StoreSettingsSchema, { ...input, ...(input.returnAddress ? { returnAddress: { ...input.returnAddress } } : {}) }, { prefix: '/input', detail: 'The store settings are invalid.' });
    return this.deps.settings.update(storeId, {
      returnLocationId: settings.returnLocationId ?? undefined,
      requireReturnApproval: settings.requireReturnApproval ?? undefined,
      returnPhoneNumber: settings.returnPhoneNumber ?? undefined,
      returnAddress: settings.returnAddress ? addressOrNull(settings.returnAddress) : undefined,
    });
  }
}

@Resolver(() => CustomerReference)
export class CustomerReturnsResolver {
  constructor(private readonly deps: ReturnsResolverDeps) {}

  @Directive('@requires(fields: "storeId email phoneNumber")')
  @FieldResolver(() => ReturnConnection, { description: "Returns of this customer's orders (matched by email or phone)." })
  async returns(
    @Root() customer: CustomerReference,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<ReturnView>> {
    // The representation comes from the gateway, but a subgraph reached directly must not trust it.
    await authorizeStoreAccess(ctx, this.deps.accounts, customer.storeId, 'returns_read');
    const filters = { list: 'customer-returns', customer: filterDigest({ id: customer.id }) };
    return toConnection(await this.deps.reads.listForCustomer(customer.storeId, customer.email, customer.phoneNumber, pageRequest(first, after, filters, selects(info, 'totalCount'))));
  }
}
