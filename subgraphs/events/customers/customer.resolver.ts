import DataLoader from 'dataloader';
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, FieldResolver, ID, Info, Int, Query, Resolver, Root } from 'type-graphql';
import type { AccountsService } from '../../../platform/accounts/accounts.service.js';
import { invalid } from '../../../platform/errors.js';
import { authorizeStoreAccess, visible } from '../../../platform/graphql/authorize.js';
import { toConnection, type Connection } from '../../../platform/graphql/connection.js';
import { memoize, type GraphQLContext } from '../../../platform/graphql/context.js';
import { pageRequest } from '../../../platform/api/pagination.js';
import { CustomEventConnection } from '../custom-event.type.js';
import { customerPayload, type CustomEventService } from '../custom-event.service.js';
import type { CustomEventRow } from '../custom-event.rows.js';
import { CustomerConnection, CustomerType } from './customer.type.js';
import type { CustomerService } from './customer.service.js';
import type { CustomerRow } from './customer.rows.js';
import { selects } from '../../../platform/graphql/selection.js';

export interface CustomerResolverDeps {
  customers: CustomerService;
  events: CustomEventService;
  accounts: AccountsService;
}

export function customerLoader(ctx: GraphQLContext, customers: CustomerService) {
  // A merged profile's id answers as the profile it was merged into.
  return memoize(ctx, 'events.customers', () =>
    new DataLoader<string, CustomerRow | null>(async (ids) => {
      const found = await customers.findByIdsOrAliases(ids);
      return ids.map((id) => found.get(id) ?? null);
    }),
  );
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

  @Query(() => CustomerConnection, { description: "A store's customers, newest first." })
  async customers(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<CustomerRow>> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'customers_read');
    return toConnection(await this.deps.customers.list(storeId, pageRequest(first, after, { list: 'customers', storeId }, selects(info, 'totalCount'))));
  }

  @FieldResolver(() => CustomEventConnection, { description: "The customer's events, newest first." })
  async events(
    @Root() customer: CustomerRow,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Arg('eventName', () => String, { nullable: true }) eventName: string | undefined,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<CustomEventRow>> {
    const request = pageRequest(first, after, { list: 'customer-events', customerId: customer.id, eventName }, selects(info, 'totalCount'));
    return toConnection(await this.deps.events.listForCustomer(customer.id, eventName, request));
  }

  @FieldResolver(() => String, { description: 'The profile as webhooks and customer exports show it, as JSON text.' })
  restJson(@Root() customer: CustomerRow): string {
    return JSON.stringify(customerPayload(customer));
  }
}

export function customerReferences(customers: CustomerService) {
  return {
    Customer: async (ref: { id: string }, ctx: GraphQLContext) => visible(ctx, await customerLoader(ctx, customers).load(ref.id)),
  };
}
