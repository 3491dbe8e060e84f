import { Arg, Ctx, Field, ID, InputType, Int, Mutation, ObjectType, Query, registerEnumType, Resolver } from 'type-graphql';
import type { AccountsService } from '../accounts/accounts.service.js';
import { hasScope, requireAdmin, scopeForbidden } from '../api/auth.js';
import { invalid } from '../errors.js';
import { authorizeStoreAccess, visible } from '../graphql/authorize.js';
import type { GraphQLContext } from '../graphql/context.js';
import type { PgBoss } from '../jobs/queue.js';
import type { ErasureRequests } from './erasure.service.js';
import type { ErasureAction, RetentionDays, SuppressionMode } from './participants.js';
import { CustomerIdentifierInput, identifierOf } from './privacy.input.js';
import type { ErasureDocument, ErasureStatus } from './privacy.schemas.js';
import { requestRetentionPass, type RetentionSettings } from './retention.js';

// The enums carry the REST spellings (decisions section 14).
const enumOf = <const T extends string>(values: readonly T[]) => Object.fromEntries(values.map((v) => [v, v])) as { [K in T]: K };
export const SuppressionModeEnum = enumOf<SuppressionMode>(['DROP', 'REFUSE']);
export const ErasureStatusEnum = enumOf<ErasureStatus>(['PENDING', 'RUNNING', 'COMPLETED', 'FAILED']);
export const ErasureActionEnum = enumOf<ErasureAction>(['REMOVED', 'ANONYMISED', 'SUPPRESSED']);
registerEnumType(SuppressionModeEnum, { name: 'SuppressionMode', description: 'Later events with an erased identifier: DROP accepts and stores nothing; REFUSE answers 409 customer-erased.' });
registerEnumType(ErasureStatusEnum, { name: 'ErasureStatus' });
registerEnumType(ErasureActionEnum, { name: 'ErasureAction' });

@ObjectType('ErasureCount')
export class ErasureCountType {
  @Field(() => String, { description: 'The kind of record (customer, custom_event, order, webhook_message, job, ...).' })
  kind!: string;

  @Field(() => ErasureActionEnum)
  action!: ErasureAction;

  @Field(() => Int)
  count!: number;
}

@ObjectType('ErasureRequest', { description: 'A customer erasure: queued, running or done, with what it removed per kind of record. The identifier it named is not kept.' })
export class ErasureRequestType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => ErasureStatusEnum)
  status!: ErasureStatus;

  @Field(() => String, { description: 'Which identifier the request named: customerId, email or phoneNumber.' })
  requestedBy!: string;

  @Field(() => SuppressionModeEnum)
  suppression!: SuppressionMode;

  @Field(() => [ID], { description: 'The service ids of the erased profiles.' })
  customerIds!: string[];

  @Field(() => [ErasureCountType])
  counts!: ErasureCountType[];

  // DateTime serialises the documents' RFC 3339 strings as it does dates.
  @Field(() => Date)
  requestedAt!: string;

  @Field(() => Date, { nullable: true })
  completedAt!: string | null;
}

@ObjectType('DataRetention', { description: "How long the store keeps each kind of record, in days (null: until erased). Enforced by a scheduled job." })
export class DataRetentionType {
  @Field(() => Int, { nullable: true, description: 'Custom events, by their eventTimestamp (default: until erased).' })
  customEventDays!: number | null;

  @Field(() => Int, { nullable: true, description: 'Messages flows sent (default 365).' })
  messageDays!: number | null;

  @Field(() => Int, { nullable: true, description: 'Finished flow runs and their steps (default 90).' })
  flowRunDays!: number | null;

  @Field(() => Int, { nullable: true, description: 'Webhook delivery logs and sent webhook messages (default 30).' })
  webhookLogDays!: number | null;
}

@InputType('DataRetentionInput', { description: 'Each given value replaces the stored one (null: until erased); omitted ones stay. Days from 1 to 36500.' })
export class DataRetentionInput {
  @Field(() => Int, { nullable: true })
  customEventDays?: number | null;

  @Field(() => Int, { nullable: true })
  messageDays?: number | null;

  @Field(() => Int, { nullable: true })
  flowRunDays?: number | null;

  @Field(() => Int, { nullable: true })
  webhookLogDays?: number | null;
}

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
