import { Arg, Ctx, Field, FieldResolver, ID, Mutation, ObjectType, Resolver, Root } from 'type-graphql';
import type { AccountsService } from '../../../platform/accounts/accounts.service.js';
import { authorizeStoreAccess } from '../../../platform/graphql/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { JSONScalar as GraphQLJSON } from '../../../platform/graphql/scalars.js';
import { restCustomer } from './customer.json.js';
import type { CustomerRow } from './customer.rows.js';
import { CustomerType } from './customer.type.js';
import type { CustomerUpserts } from './customer-upsert.service.js';

@ObjectType('CustomerUpsertPayload')
export class CustomerUpsertPayloadType {
  @Field(() => CustomerType) customer!: CustomerRow;
  @Field(() => Boolean, { description: 'True when the customer was created, false when an existing one was updated' }) created!: boolean;
}

/** The real platform's customer operations for GraphQL clients and the REST routes (GET/PUT /stores/{storeId}/customers). */
@Resolver(() => CustomerType)
export class CustomerProfileResolver {
  constructor(private readonly deps: { upserts: CustomerUpserts; accounts: AccountsService }) {}

  @Mutation(() => CustomerUpsertPayloadType, {
    description:
      'Creates or updates a customer by email (any case): `input` is the REST body {email, firstName?, lastName?, phoneNumber?, location?, customFields?}, applied with patch semantics. An erased email or phone is refused (409).',
  })
  async upsertCustomer(@Arg('storeId', () => ID) storeId: string, @Arg('input', () => GraphQLJSON) input: unknown, @Ctx() ctx: GraphQLContext): Promise<CustomerUpsertPayloadType> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'customers_write');
    return this.deps.upserts.upsert(storeId, input);
  }

  @FieldResolver(() => String, { nullable: true, description: "The profile as the customer operations read it (GET /stores/{storeId}/customers), as JSON text; null for a customer without an email." })
  apiJson(@Root() customer: CustomerRow): string | null {
    return customer.email ? JSON.stringify(restCustomer({ ...customer, email: customer.email })) : null;
  }
}
