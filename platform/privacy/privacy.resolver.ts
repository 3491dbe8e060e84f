import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { AccountsService } from '../accounts/accounts.service.js';
import { hasScope, requireAdmin, scopeForbidden } from '../api/auth.js';
import { invalid } from '../errors.js';
import { authorizeStoreAccess, visible } from '../graphql/authorize.js';
import type { GraphQLContext } from '../graphql/context.js';
import type { PgBoss } from '../jobs/queue.js';
import type { ErasureRequests } from './erasure.service.js';
import type { RetentionDays, SuppressionMode } from './participants.js';
import { CustomerIdentifierInput, DataRetentionInput, identifierOf } from './privacy.input.js';
import type { ErasureDocument } from './privacy.schemas.js';
import { DataRetentionType, ErasureRequestType, SuppressionModeEnum } from './privacy.type.js';
import { requestRetentionPass, type RetentionSettings } from './retention.js';

export interface PrivacyResolverDeps {
  accounts: AccountsService;
  boss: PgBoss;
  erasures: ErasureRequests;
  retention: RetentionSettings;
}

/** Erasure requests and retention settings (in the platform subgraph: every part of the service takes part in them). */
@Resolver()
export class PrivacyResolver {
  constructor(private readonly deps: PrivacyResolverDeps) {}

  @Mutation(() => ErasureRequestType, { description: 'Queues the erasure of a customer from every record of the store (scope privacy_write); poll erasureRequest(id).' })
  async eraseCustomer(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('by', () => CustomerIdentifierInput) by: CustomerIdentifierInput,
    @Arg('suppression', () => SuppressionModeEnum, { defaultValue: 'DROP' }) suppression: SuppressionMode,
    @Ctx() ctx: GraphQLContext,
  ): Promise<ErasureDocument> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'privacy_write');
    return this.deps.erasures.request(storeId, identifierOf(by), suppression);
  }

  @Query(() => ErasureRequestType, { nullable: true, description: 'An erasure request; null when unknown or of another account (scope privacy_read).' })
  async erasureRequest(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<ErasureDocument | null> {
    const [found] = await this.deps.erasures.documents([id]);
    const shown = visible(ctx, found);
    if (shown && !hasScope(ctx.auth, 'privacy_read')) throw scopeForbidden('privacy_read');
    return shown;
  }

  @Query(() => DataRetentionType, { description: "The store's retention setting (scope privacy_read)." })
  async dataRetention(@Arg('storeId', () => ID) storeId: string, @Ctx() ctx: GraphQLContext): Promise<RetentionDays> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'privacy_read');
    return this.deps.retention.get(storeId);
  }

  @Mutation(() => DataRetentionType, { description: "Changes the store's retention setting (scope privacy_write)." })
  async updateDataRetention(@Arg('storeId', () => ID) storeId: string, @Arg('input', () => DataRetentionInput) input: DataRetentionInput, @Ctx() ctx: GraphQLContext): Promise<RetentionDays> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'privacy_write');
    return this.deps.retention.update(storeId, checkDays({ ...input }));
  }

  @Mutation(() => Boolean, { description: 'Admin token only: queues a retention pass now (besides the schedule).' })
  async enforceDataRetention(@Ctx() ctx: GraphQLContext): Promise<boolean> {
    requireAdmin(ctx.auth);
    await requestRetentionPass(this.deps.boss);
    return true;
  }
}

/** Days from 1 to 36500, or null. */
export function checkDays(patch: Partial<RetentionDays>): Partial<RetentionDays> {
  for (const [key, days] of Object.entries(patch)) {
    if (days !== null && days !== undefined && (!Number.isInteger(days) || days < 1 || days > 36_500)) {
      throw invalid('validation-failed', 'A retention is invalid.', [{ pointer: `/input/${key}`, detail: 'must be a number of days from 1 to 36500, or null' }]);
    }
  }
  return patch;
}
