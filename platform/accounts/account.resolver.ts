import { Arg, Ctx, Field, ID, InputType, Mutation, ObjectType, Resolver } from 'type-graphql';
import { requireAdmin } from '../auth.js';
import type { GraphQLContext } from '../graphql/context.js';
import type { AccountsService } from './accounts.service.js';

@InputType()
export class CreateAccountInput {
  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true, description: 'Name of the first store; defaults to the account name.' })
  storeName?: string;
}

@ObjectType()
export class CreateAccountPayload {
  @Field(() => ID)
  accountId!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String, { description: 'Shown once; only its hash is kept.' })
  apiSecret!: string;

  @Field(() => String, { description: 'Compatibility API key for the store; shown once.' })
  compatKey!: string;
}

/** Account administration for the admin token (served by the returns subgraph). */
@Resolver()
export class AccountResolver {
  constructor(private readonly accounts: AccountsService) {}

  @Mutation(() => CreateAccountPayload, { description: 'Creates an account with one store, an API secret and a compat key (admin token only).' })
  async createAccount(@Arg('input', () => CreateAccountInput) input: CreateAccountInput, @Ctx() ctx: GraphQLContext): Promise<CreateAccountPayload> {
    requireAdmin(ctx.auth);
    return this.accounts.createAccount(input);
  }
}
