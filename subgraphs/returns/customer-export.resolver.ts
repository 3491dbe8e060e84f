import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Directive, FieldResolver, Info, Int, Resolver, Root } from 'type-graphql';
import { authorizeStoreAccess } from '../../platform/graphql/authorize.js';
import { toConnection, type Connection } from '../../platform/graphql/connection.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import { selects } from '../../platform/graphql/selection.js';
import { pageRequest } from '../../platform/api/pagination.js';
import { CustomerExportReference } from './customer-export.type.js';
import { OrderConnection } from './order.type.js';
import { OrderViews, type OrderView } from './order.view.js';
import type { ReturnsResolverDeps } from './return.resolver.js';
import { ReturnConnection } from './return.type.js';
import { ReturnViews, type ReturnView } from './return.view.js';

const REQUIRES = '@requires(fields: "storeId email phoneNumber")';

/** `CustomerExport.orders` and `.returns`: this subgraph's part of an access request. */
@Resolver(() => CustomerExportReference)
export class CustomerExportResolver {
  private readonly orderViews: OrderViews;
  private readonly returnViews: ReturnViews;

  constructor(private readonly deps: ReturnsResolverDeps) {
    this.orderViews = new OrderViews(deps.orderReads);
    this.returnViews = new ReturnViews(deps.reads);
  }

  @Directive(REQUIRES)
  @FieldResolver(() => OrderConnection, { description: "Orders whose customer has the export's email or phone number, newest first." })
  async orders(
    @Root() exported: CustomerExportReference,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<OrderView>> {
    // The representation comes from the gateway, but a subgraph reached directly must not trust it.
    await authorizeStoreAccess(ctx, this.deps.accounts, exported.storeId, 'privacy_read');
    const request = pageRequest(first, after, { list: 'export-orders', export: exported.id }, selects(info, 'totalCount'));
    return toConnection(await this.orderViews.listForCustomer(exported.storeId, exported.email, exported.phoneNumber, request));
  }

  @Directive(REQUIRES)
  @FieldResolver(() => ReturnConnection, { description: "Returns of those orders, most recently updated first." })
  async returns(
    @Root() exported: CustomerExportReference,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<ReturnView>> {
    await authorizeStoreAccess(ctx, this.deps.accounts, exported.storeId, 'privacy_read');
    const request = pageRequest(first, after, { list: 'export-returns', export: exported.id }, selects(info, 'totalCount'));
    return toConnection(await this.returnViews.listForCustomer(exported.storeId, exported.email, exported.phoneNumber, request));
  }
}
