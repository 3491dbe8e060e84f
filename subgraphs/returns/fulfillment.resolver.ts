import DataLoader from 'dataloader';
import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Resolver, Root } from 'type-graphql';
import { JSONScalar as GraphQLJSON } from '../../platform/graphql/scalars.js';
import { authorizeStoreAccess } from '../../platform/graphql/authorize.js';
import { memoize, type GraphQLContext } from '../../platform/graphql/context.js';
import { batchById } from '../../platform/graphql/loaders.js';
import type { FulfillmentReads, FulfillmentRow, LineFulfillment } from './fulfillment.rows.js';
import type { FulfillmentService } from './fulfillment.service.js';
import { FulfillmentPayloadType, FulfillmentType } from './fulfillment.type.js';
import { fulfillmentView, type FulfillmentView } from './fulfillment.view.js';
import { ordersApiOrder } from './order-api.json.js';
import { OrderItemType, OrderType } from './order.type.js';
import type { OrderItemView, OrderView } from './order.view.js';
import type { ReturnsResolverDeps } from './return.resolver.js';
import { ReturnItemType } from './return.type.js';
import type { ReturnItemView } from './return.view.js';

export interface FulfillmentResolverDeps extends Pick<ReturnsResolverDeps, 'accounts'> {
  fulfillmentReads: FulfillmentReads;
  fulfillments: FulfillmentService;
}

/** Per-request loaders: an order's fulfillments, and what shipped of order lines. */
function fulfillmentLoaders(ctx: GraphQLContext, reads: FulfillmentReads) {
  return memoize(ctx, 'returns.fulfillment-loaders', () => ({
    byOrder: new DataLoader<string, FulfillmentRow[]>(async (orderIds) => {
      const rows = await reads.forOrders(orderIds);
      return orderIds.map((id) => rows.get(id) ?? []);
    }),
    byLine: new DataLoader<string, LineFulfillment | null>(batchById((ids) => reads.lineStates(ids))),
  }));
}

@Resolver(() => FulfillmentType)
export class FulfillmentResolver {
  constructor(private readonly deps: FulfillmentResolverDeps) {}

  @Mutation(() => FulfillmentPayloadType, {
    description:
      "Ships units of an order's lines (the orders API's create fulfillment). `order` is its service id or external id; `input` is the REST body ({fulfillmentId?, lineItems: [{id, quantity}], tracking?, useDummyTracking?, initialTracking?}).",
  })
  async createFulfillment(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('order', () => String) order: string,
    @Arg('input', () => GraphQLJSON) input: unknown,
    @Ctx() ctx: GraphQLContext,
  ): Promise<{ created: boolean; fulfillment: FulfillmentView }> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'orders_write');
    const { fulfillment, created } = await this.deps.fulfillments.create(storeId, order, input);
    return { created, fulfillment: fulfillmentView(fulfillment) };
  }

  @Mutation(() => FulfillmentType, {
    description: 'Records a carrier update of a fulfillment: a status (moves it, unless a newer one already did) or an event (recorded only). `input` is the REST body.',
  })
  async updateFulfillmentStatus(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('order', () => String) order: string,
    @Arg('fulfillment', () => String, { description: 'Its fulfillmentId' }) fulfillment: string,
    @Arg('input', () => GraphQLJSON) input: unknown,
    @Ctx() ctx: GraphQLContext,
  ): Promise<FulfillmentView> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'orders_write');
    return fulfillmentView(await this.deps.fulfillments.updateStatus(storeId, order, fulfillment, input));
  }

  @FieldResolver(() => String, { description: 'This fulfillment as the orders API shows it, as JSON text.' })
  restJson(@Root() fulfillment: FulfillmentView): string {
    return JSON.stringify(fulfillment.document);
  }
}

@Resolver(() => OrderType)
export class OrderFulfillmentResolver {
  constructor(private readonly deps: FulfillmentResolverDeps) {}

  @FieldResolver(() => [FulfillmentType], { description: 'Its fulfillments, oldest first.' })
  async fulfillments(@Root() order: OrderView, @Ctx() ctx: GraphQLContext): Promise<FulfillmentView[]> {
    return (await fulfillmentLoaders(ctx, this.deps.fulfillmentReads).byOrder.load(order.id)).map(fulfillmentView);
  }

  @FieldResolver(() => String, { description: 'This order as the orders API reads it (GET /stores/{storeId}/orders/{orderId}), fulfillments included, as JSON text.' })
  async apiJson(@Root() order: OrderView, @Ctx() ctx: GraphQLContext): Promise<string> {
    return JSON.stringify(ordersApiOrder(order, await fulfillmentLoaders(ctx, this.deps.fulfillmentReads).byOrder.load(order.id)));
  }
}

@Resolver(() => OrderItemType)
export class OrderItemFulfillmentResolver {
  constructor(private readonly deps: FulfillmentResolverDeps) {}

  @FieldResolver(() => Int, { nullable: true, description: 'Units of the line in fulfillments that are not cancelled; null when the order reports no fulfillments.' })
  async fulfilledQuantity(@Root() item: OrderItemView, @Ctx() ctx: GraphQLContext): Promise<number | null> {
    const state = await fulfillmentLoaders(ctx, this.deps.fulfillmentReads).byLine.load(item.id);
    return state?.reported ? state.units : null;
  }
}

@Resolver(() => ReturnItemType)
export class ReturnItemFulfillmentResolver {
  constructor(private readonly deps: FulfillmentResolverDeps) {}

  @FieldResolver(() => Int, {
    nullable: true,
    description: "Units of the item's order line in fulfillments that are not cancelled; null when the order reports no fulfillments (every unit ordered is returnable then).",
  })
  async fulfilledQuantity(@Root() item: ReturnItemView, @Ctx() ctx: GraphQLContext): Promise<number | null> {
    const state = await fulfillmentLoaders(ctx, this.deps.fulfillmentReads).byLine.load(item.orderItem.id);
    return state?.reported ? state.units : null;
  }

  @FieldResolver(() => Boolean, { nullable: true, description: "Whether the item's units were fulfilled (as many units of its line shipped); null when the order reports no fulfillments." })
  async fulfilled(@Root() item: ReturnItemView, @Ctx() ctx: GraphQLContext): Promise<boolean | null> {
    const state = await fulfillmentLoaders(ctx, this.deps.fulfillmentReads).byLine.load(item.orderItem.id);
    return state?.reported ? state.units >= item.quantity : null;
  }

  @FieldResolver(() => String, { nullable: true, description: "The status of the newest fulfillment shipping the item's order line (not cancelled), if any." })
  async fulfillmentStatus(@Root() item: ReturnItemView, @Ctx() ctx: GraphQLContext): Promise<string | null> {
    return (await fulfillmentLoaders(ctx, this.deps.fulfillmentReads).byLine.load(item.orderItem.id))?.status ?? null;
  }
}
