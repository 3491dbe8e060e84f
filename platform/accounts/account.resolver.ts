import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { requireAdmin, storeNotFound } from '../api/auth.js';
import { AppError, invalid } from '../errors.js';
import { storeVisible } from '../graphql/authorize.js';
import type { GraphQLContext } from '../graphql/context.js';
import { isTimeZone } from '../validation/rules.js';
import { CreateAccountInput, UpdateStoreInput } from './account.input.js';
import { AccountContact, AccountSummary, CreateAccountPayload, StoreSummary } from './account.type.js';
import type { AccountsService } from './accounts.service.js';

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
