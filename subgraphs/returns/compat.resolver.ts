import { JSONScalar as GraphQLJSON } from '../../platform/graphql/scalars.js';
import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { authorizeStoreAccess } from '../../platform/graphql/authorize.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import { pageRequest, type Page } from '../../platform/api/pagination.js';
import { check } from '../../platform/validation/index.js';
import { ReturnConditionInput, ReturnLookupInput, ReturnWindowInput } from './compat.input.js';
import { returnRecord } from './compat.json.js';
import { ReturnChangeType, ReturnWindowPageInfoType, ReturnWindowPageType } from './compat.type.js';
import { checkLookup, type ConditionalChange } from './return-changes.service.js';
import { returnLoaders, type ReturnsResolverDeps } from './return.resolver.js';
import { WINDOW_PAGE_SIZE, type CommentRow } from './return.rows.js';
import type { ReturnStatus } from './return.rules.js';
import { ReturnWindowSchema } from './return.schemas.js';
import { ReturnCommentType, ReturnStatusEnum, ReturnType } from './return.type.js';
import { ReturnViews, type ReturnView } from './return.view.js';

/**
 * The operations only the compatibility API calls (rest-facade/compat/):
 * returns found by lookup, time windows paged both ways, changes made only if
 * a condition holds, and the flat return record. They know nothing of Loop;
 * they are kept here so that coupling has one address.
 */

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

  @FieldResolver(() => ReturnWindowPageInfoType)
  pageInfo(@Root() { page }: WindowPage) {
    return { hasNextPage: page.hasNextPage, hasPreviousPage: page.hasPreviousPage ?? false, startCursor: page.startCursor ?? null, endCursor: page.endCursor };
  }
}

/** The result of a conditional change as the GraphQL type shows it. */
function changeResult(change: ConditionalChange) {
  return { applied: change.applied, return: change.view };
}

@Resolver(() => ReturnType)
export class CompatResolver {
  private readonly views: ReturnViews;

  constructor(private readonly deps: ReturnsResolverDeps) {
    this.views = new ReturnViews(deps.reads);
  }

  @FieldResolver(() => String, {
    description: "This return's facts as one flat JSON document (ids and numeric ids, status, times, shipment, customer, order, items with their order lines' amounts), for API surfaces that map returns to their own formats.",
  })
  recordJson(@Root() ret: ReturnView): string {
    return JSON.stringify(returnRecord(ret));
  }

  @Query(() => ReturnType, { nullable: true, description: 'A return of the store found by id, numeric id, order name or order numeric id (an order: its newest return); null when none.' })
  async lookupReturn(@Arg('storeId', () => ID) storeId: string, @Arg('by', () => ReturnLookupInput) by: ReturnLookupInput, @Ctx() ctx: GraphQLContext): Promise<ReturnView | null> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'returns_read');
    const view = await this.views.lookup(storeId, checkLookup({ ...by }));
    if (view) returnLoaders(ctx, this.deps).returns.prime(view.id, view);
    return view;
  }

  @Query(() => ReturnWindowPageType, {
    description:
      "A store's returns created (or last updated) in [from, until), newest first on that time, meeting the condition; paged forwards (after) or backwards (before). A cursor is a position in the store's returns: it applies under any window or condition.",
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
    // A cursor is a position (a time and an id) in the store's returns, bound to the store only: the same
    // position applies under another window or condition (Loop's cursors are positions, decisions section 17).
    const filters = { list: 'returns-window', storeId };
    const page = await this.views.window(storeId, input, pageRequest(first, after, filters, false, { before, size: WINDOW_PAGE_SIZE }));
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
}

/** A condition argument as a plain object (type-graphql builds input class instances). */
function conditionArg(onlyIf: ReturnConditionInput | undefined): unknown {
  if (!onlyIf) return null;
  return { ...onlyIf, ...(onlyIf.awaitingShipment ? { awaitingShipment: { ...onlyIf.awaitingShipment } } : {}) };
}
