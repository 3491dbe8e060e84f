import { Arg, Ctx, Field, ID, InputType, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { requireAdmin, storeNotFound } from '../api/auth.js';
import { AppError, invalid } from '../errors.js';
import { storeVisible } from '../graphql/authorize.js';
import type { GraphQLContext } from '../graphql/context.js';
import { isTimeZone } from '../validation/rules.js';
import type { AccountsService } from './accounts.service.js';

@InputType()
export class CreateAccountInput {
  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true, description: 'Name of the first store; defaults to the account name.' })
  storeName?: string;

  @Field(() => String, { nullable: true, description: "The account's contact: told by email (when SMTP is set) when a webhook subscription of the account is disabled." })
  contactEmail?: string | null;
}

@ObjectType({ description: "An account's contact address." })
export class AccountContact {
  @Field(() => ID)
  accountId!: string;

  @Field(() => String, { nullable: true })
  contactEmail!: string | null;
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

@ObjectType({ description: 'An account (administration).' })
export class AccountSummary {
  @Field(() => ID)
  accountId!: string;

  @Field(() => String)
  name!: string;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Int)
  storeCount!: number;
}

@ObjectType({ description: 'A store of an account, with its id for the REST and GraphQL calls that take one.' })
export class StoreSummary {
  @Field(() => ID)
  storeId!: string;

  @Field(() => ID)
  accountId!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true, description: 'IANA time zone where analytics buckets start when a query names none; null: UTC.' })
  timeZone!: string | null;

  @Field(() => Date)
  createdAt!: Date;
}

@InputType()
export class UpdateStoreInput {
  @Field(() => String, { nullable: true })
  name?: string | null;

  @Field(() => String, { nullable: true, description: 'An IANA time zone name (e.g. Europe/Berlin); null clears it (UTC).' })
  timeZone?: string | null;
}

/** Account administration for the admin token (in the platform subgraph, server/platform-subgraph.ts). */
@Resolver()
export class AccountResolver {
  constructor(private readonly accounts: AccountsService) {}

  @Mutation(() => CreateAccountPayload, { description: 'Creates an account with one store, an API secret and a compat key (admin token only).' })
  async createAccount(@Arg('input', () => CreateAccountInput) input: CreateAccountInput, @Ctx() ctx: GraphQLContext): Promise<CreateAccountPayload> {
    requireAdmin(ctx.auth);
    return this.accounts.createAccount(input);
  }

  @Mutation(() => AccountContact, { description: "Sets (or, with null, clears) the account's contact email, told when a webhook subscription of the account is disabled. The admin token, or an API secret of the account." })
  async setAccountContact(
    @Arg('accountId', () => ID) accountId: string,
    @Arg('contactEmail', () => String, { nullable: true }) contactEmail: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<AccountContact> {
    const principal = ctx.auth;
    if (principal.kind !== 'admin' && !(principal.kind === 'account' && principal.accountId === accountId)) {
      throw new AppError('not_found', 'account-not-found', `Account ${accountId} was not found.`);
    }
    return this.accounts.setContact(accountId, contactEmail ?? null);
  }

  @Mutation(() => StoreSummary, { description: "Renames a store or sets its time zone. The admin token, or an API secret of the store's account." })
  async updateStore(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => UpdateStoreInput) input: UpdateStoreInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<StoreSummary> {
    if (ctx.auth.kind === 'compat' || !(await storeVisible(ctx, this.accounts, storeId))) throw storeNotFound(storeId);
    if (typeof input.timeZone === 'string' && !isTimeZone(input.timeZone)) {
      throw invalid('validation-failed', `"${input.timeZone}" is not a known IANA time zone.`, [{ pointer: '/input/timeZone', detail: 'must be an IANA time zone name, e.g. Europe/Berlin' }]);
    }
    return this.accounts.updateStore(storeId, { name: input.name ?? undefined, timeZone: input.timeZone });
  }

  @Query(() => [AccountSummary], { name: 'accounts', description: 'Every account, oldest first (admin token only): how to find a lost account id again.' })
  async listAccounts(@Ctx() ctx: GraphQLContext): Promise<AccountSummary[]> {
    requireAdmin(ctx.auth);
    return this.accounts.listAccounts();
  }

  @Query(() => [StoreSummary], {
    description:
      "Stores, oldest first. With an API secret: the caller's own account's stores (`accountId` may be omitted; another account's is not found). With the admin token: the stores of `accountId`, which is then required.",
  })
  async stores(@Arg('accountId', () => ID, { nullable: true }) accountId: string | undefined, @Ctx() ctx: GraphQLContext): Promise<StoreSummary[]> {
    const principal = ctx.auth;
    if (principal.kind === 'admin') {
      if (!accountId) throw new AppError('invalid_data', 'validation-failed', 'accountId is required with the admin token.', { errors: [{ pointer: '/accountId', detail: 'required with the admin token' }] });
      return this.accounts.listStores(accountId);
    }
    if (principal.kind !== 'account' || (accountId !== undefined && accountId !== principal.accountId)) {
      throw new AppError('not_found', 'account-not-found', `Account ${accountId ?? ''} was not found.`);
    }
    return this.accounts.listStores(principal.accountId);
  }
}
