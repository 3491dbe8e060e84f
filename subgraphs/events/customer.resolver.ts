import DataLoader from 'dataloader';
import { Arg, Ctx, ID, Query, Resolver } from 'type-graphql';
import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import { invalid } from '../../platform/errors.js';
import { authorizeStoreAccess, visible } from '../../platform/graphql/authorize.js';
import { memoize, type GraphQLContext } from '../../platform/graphql/context.js';
import { CustomerType } from './customer.type.js';
import type { CustomerRow, CustomerService } from './customer.service.js';

export interface CustomerResolverDeps {
  customers: CustomerService;
  accounts: AccountsService;
}

export function customerLoader(ctx: GraphQLContext, customers: CustomerService) {
  return memoize(ctx, 'events.customers', () => new DataLoader<string, CustomerRow | null>(async (ids) => {
    const rows = new Map((await customers.findByIds(ids)).map((r) => [r.id, r]));
    return ids.map((id) => rows.get(id) ?? null);
  }));
}

@Resolver(() => CustomerType)
export class CustomerResolver {
  constructor(private readonly deps: CustomerResolverDeps) {}

  @Query(() => CustomerType, { nullable: true, description: 'A customer of the store by id, email or phone number; null when unknown.' })
  async customer(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID, { nullable: true }) id: string | undefined,
    @Arg('email', () => String, { nullable: true }) email: string | undefined,
    @Arg('phoneNumber', () => String, { nullable: true }) phoneNumber: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CustomerRow | null> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'customers_read');
    if (!id && !email && !phoneNumber) throw invalid('validation-failed', 'Give one of id, email or phoneNumber.');
    return this.deps.customers.lookup(storeId, { id, email, phoneNumber });
  }
}

export function customerReferences(customers: CustomerService) {
  return {
    Customer: async (ref: { id: string }, ctx: GraphQLContext) => visible(ctx, await customerLoader(ctx, customers).load(ref.id)),
  };
}
