import { JSONScalar as GraphQLJSON } from '../../platform/graphql/scalars.js';
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, FieldResolver, ID, Info, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { selects } from '../../platform/graphql/selection.js';
import { hasScope, scopeForbidden } from '../../platform/api/auth.js';
import { authorizeStoreAccess, visible } from '../../platform/graphql/authorize.js';
import { toConnection, type Connection } from '../../platform/graphql/connection.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import { pageRequest } from '../../platform/api/pagination.js';
import { restOrder } from './order.json.js';
import { DeletedOrderType } from './fulfillment.type.js';
import { OrderType } from './order.type.js';
import type { OrderView } from './order.view.js';
import { returnLoaders, type ReturnsResolverDeps } from './return.resolver.js';
import { ReturnConnection } from './return.type.js';
import { ReturnViews, type ReturnView } from './return.view.js';

@Resolver(() => OrderType)
export class OrderResolver {
  private readonly returnViews: ReturnViews;

  constructor(private readonly deps: ReturnsResolverDeps) {
    this.returnViews = new ReturnViews(deps.reads);
  }

  @Query(() => OrderType, { nullable: true, description: 'An order by id; null when absent or in another account.' })
  async order(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<OrderView | null> {
    const view = visible(ctx, await returnLoaders(ctx, this.deps).orders.load(id));
    if (view && !hasScope(ctx.auth, 'returns_read')) throw scopeForbidden('returns_read');
    return view;
  }

  @Query(() => OrderType, {
    nullable: true,
    description: "An order of a store by its service id, its external id (the orderId it was created with) or its name (#1001), as the orders API finds it; null when none.",
  })
  async orderByReference(@Arg('storeId', () => ID) storeId: string, @Arg('reference', () => String) reference: string, @Ctx() ctx: GraphQLContext): Promise<OrderView | null> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'orders_read');
    const id = await this.deps.orders.find(storeId, reference);
    return id ? returnLoaders(ctx, this.deps).orders.load(id) : null;
  }

  @Mutation(() => OrderType, { description: "Creates an order (the orders API's create: `input` is its body; provider custom). An order with the same orderId already there is 409." })
  async createOrder(@Arg('storeId', () => ID) storeId: string, @Arg('input', () => GraphQLJSON) input: unknown, @Ctx() ctx: GraphQLContext): Promise<OrderView> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'orders_write');
    return this.deps.orders.create(storeId, input);
  }

  @Mutation(() => DeletedOrderType, { description: 'Deletes an order (by service id or external id) with its lines and fulfillments; an order with returns is kept (409).' })
  async deleteOrder(@Arg('storeId', () => ID) storeId: string, @Arg('order', () => String) order: string, @Ctx() ctx: GraphQLContext): Promise<DeletedOrderType> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'orders_write');
    const { orderId, order: document } = await this.deps.orders.remove(storeId, order);
    return { orderId, externalOrderId: document.orderId, apiJson: JSON.stringify(document) };
  }

  @Mutation(() => OrderType, { description: 'Creates or updates an order by (provider, external id). `input` is the order object of the custom orders endpoint plus `provider` (default custom).' })
  async upsertOrder(@Arg('storeId', () => ID) storeId: string, @Arg('input', () => GraphQLJSON) input: unknown, @Ctx() ctx: GraphQLContext): Promise<OrderView> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'orders_write');
    return (await this.deps.orders.upsert(storeId, input)).view;
  }

  @FieldResolver(() => [String], { nullable: true, description: "The order's tags, as the orders API gave them." })
  tags(@Root() order: OrderView): string[] | null {
    return order.api.tags;
  }

  @FieldResolver(() => Boolean, { description: 'True for the order made for an imported return (no order of the store: not counted as ordered, not in the orders API).' })
  imported(@Root() order: OrderView): boolean {
    return order.importedAt !== null;
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
    return toConnection(await this.returnViews.listForOrder(order.id, pageRequest(first, after, { list: 'order-returns', orderId: order.id }, selects(info, 'totalCount'))));
  }
}
