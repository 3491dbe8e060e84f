import DataLoader from 'dataloader';
import { Arg, Ctx, Directive, FieldResolver, ID, Int, Query, Resolver, Root } from 'type-graphql';
import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import { hasScope, scopeForbidden } from '../../platform/auth.js';
import { authorizeStoreAccess, visible } from '../../platform/graphql/authorize.js';
import { toConnection, type Connection } from '../../platform/graphql/connection.js';
import { memoize, type GraphQLContext } from '../../platform/graphql/context.js';
import { filterDigest } from '../../platform/cursor.js';
import { pageRequest } from '../../platform/pagination.js';
import { CustomerReference, OrderType, ReturnConnection, ReturnType } from './return.type.js';
import type { OrderRow, ReturnRow, ReturnService } from './return.service.js';

export interface ReturnsResolverDeps {
  service: ReturnService;
  accounts: AccountsService;
}

function byId<T extends { id: string }>(load: (ids: readonly string[]) => Promise<T[]>) {
  return async (ids: readonly string[]) => {
    const rows = new Map((await load(ids)).map((r) => [r.id, r]));
    return ids.map((id) => rows.get(id) ?? null);
  };
}

/** Per-request loaders: one query for all the returns (or orders) a response needs. */
export function returnLoaders(ctx: GraphQLContext, service: ReturnService) {
  return memoize(ctx, 'returns.loaders', () => ({
    returns: new DataLoader<string, ReturnRow | null>(byId((ids) => service.findReturns(ids))),
    orders: new DataLoader<string, OrderRow | null>(byId((ids) => service.findOrders(ids))),
  }));
}

@Resolver(() => ReturnType)
export class ReturnResolver {
  constructor(private readonly deps: ReturnsResolverDeps) {}

  @Query(() => ReturnType, { nullable: true, description: 'A return by id; null when absent or in another account.' })
  async return(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<ReturnRow | null> {
    const row = visible(ctx, await returnLoaders(ctx, this.deps.service).returns.load(id));
    if (row && !hasScope(ctx.auth, 'returns_read')) throw scopeForbidden('returns_read');
    return row;
  }

  @Query(() => ReturnConnection, { description: "A store's returns, most recently updated first." })
  async returns(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Connection<ReturnRow>> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'returns_read');
    const page = await this.deps.service.listReturns(storeId, pageRequest(first, after, { list: 'returns', storeId }));
    return toConnection(page);
  }

  @FieldResolver(() => OrderType)
  async order(@Root() ret: ReturnRow, @Ctx() ctx: GraphQLContext): Promise<OrderRow | null> {
    return returnLoaders(ctx, this.deps.service).orders.load(ret.orderId);
  }
}

@Resolver(() => OrderType)
export class OrderResolver {
  constructor(private readonly deps: ReturnsResolverDeps) {}

  @FieldResolver(() => ReturnConnection, { description: 'Returns made against this order, most recently updated first.' })
  async returns(
    @Root() order: OrderRow,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
  ): Promise<Connection<ReturnRow>> {
    const page = await this.deps.service.listOrderReturns(order.id, pageRequest(first, after, { list: 'order-returns', orderId: order.id }));
    return toConnection(page);
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
  ): Promise<Connection<ReturnRow>> {
    // The representation comes from the gateway, but a subgraph reached directly must not trust it.
    await authorizeStoreAccess(ctx, this.deps.accounts, customer.storeId, 'returns_read');
    const filters = { list: 'customer-returns', customer: filterDigest({ id: customer.id }) };
    const page = await this.deps.service.listCustomerReturns(customer.storeId, customer.email, customer.phoneNumber, pageRequest(first, after, filters));
    return toConnection(page);
  }
}
