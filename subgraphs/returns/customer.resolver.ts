import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, Directive, FieldResolver, Info, Int, Resolver, Root } from 'type-graphql';
import { filterDigest } from '../../platform/api/cursor.js';
import { authorizeStoreAccess } from '../../platform/graphql/authorize.js';
import { toConnection, type Connection } from '../../platform/graphql/connection.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import { selects } from '../../platform/graphql/selection.js';
import { pageRequest } from '../../platform/api/pagination.js';
import { CustomerReference } from './customer.type.js';
import type { ReturnsResolverDeps } from './return.resolver.js';
import { ReturnConnection } from './return.type.js';
import { ReturnViews, type ReturnView } from './return.view.js';

/** `Customer.returns`: this subgraph's field on the events subgraph's customer. */
@Resolver(() => CustomerReference)
export class CustomerReturnsResolver {
  private readonly views: ReturnViews;

  constructor(private readonly deps: ReturnsResolverDeps) {
    this.views = new ReturnViews(deps.reads);
  }

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
    return toConnection(await this.views.listForCustomer(customer.storeId, customer.email, customer.phoneNumber, pageRequest(first, after, filters, selects(info, 'totalCount'))));
  }
}
