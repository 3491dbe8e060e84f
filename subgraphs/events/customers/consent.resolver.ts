import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, FieldResolver, ID, Info, Int, Mutation, Resolver, Root } from 'type-graphql';
import type { AccountsService } from '../../../platform/accounts/accounts.service.js';
import { pageRequest } from '../../../platform/api/pagination.js';
import type { Principal } from '../../../platform/api/auth.js';
import { invalid } from '../../../platform/errors.js';
import { authorizeStoreAccess } from '../../../platform/graphql/authorize.js';
import { toConnection, type Connection } from '../../../platform/graphql/connection.js';
import { memoize, type GraphQLContext } from '../../../platform/graphql/context.js';
import { JSONScalar as GraphQLJSON } from '../../../platform/graphql/scalars.js';
import { selects } from '../../../platform/graphql/selection.js';
import DataLoader from 'dataloader';
import { consentMatrix, type ConsentChangeRow, type ConsentRow, type ConsentService, type SuppressionRow } from './consent.service.js';
import {
  ChannelSuppressionType,
  ConsentChangeConnection,
  ConsentChannelEnum,
  ConsentSource,
  CustomerConsentInput,
  CustomerConsentType,
  CustomerSubscriptionsResultType,
} from './consent.type.js';
import type { CustomerMerges } from './customer-merge.service.js';
import { CustomerType } from './customer.type.js';
import type { CustomerService } from './customer.service.js';
import type { CustomerRow } from './customer.rows.js';
import type { ConsentChannel } from './consent.rules.js';

export interface ConsentResolverDeps {
  consent: ConsentService;
  merges: CustomerMerges;
  customers: CustomerService;
  accounts: AccountsService;
}

/** Who made a change, as the consent history keeps it: never the secret itself. */
function actorOf(auth: Principal): string {
  switch (auth.kind) {
    case 'admin':
      return 'admin';
    case 'account':
      return `secret:${auth.secretId}`;
    case 'compat':
      return `compat-key:${auth.keyId}`;
  }
}

const REASON_MAX = 200;

function consentLoader(ctx: GraphQLContext, consent: ConsentService) {
  return memoize(ctx, 'events.consent', () => new DataLoader<string, ConsentRow[]>(async (ids) => {
    const rows = await consent.current(ids);
    return ids.map((id) => rows.filter((r) => r.customerId === id));
  }));
}

function suppressionLoader(ctx: GraphQLContext, consent: ConsentService) {
  return memoize(ctx, 'events.channel-suppressions', () => new DataLoader<string, SuppressionRow[]>(async (ids) => {
    const rows = await consent.suppressions(ids);
    return ids.map((id) => rows.filter((r) => r.customerId === id));
  }));
}

/** Consent for dashboards: the customer-subscriptions operation's twin, single changes, suppressions, merges, and the customer's fields. */
@Resolver(() => CustomerType)
export class CustomerConsentResolver {
  constructor(private readonly deps: ConsentResolverDeps) {}

  @Mutation(() => CustomerSubscriptionsResultType, {
    description:
      'The real platform\'s customer-subscriptions update: `input` is its body ({email: {email, subscriptions: {marketing}}, sms: {phoneNumber, subscriptions: {marketing, transactional}}}), checked with the same pointers as the REST route. Customers are created when missing (scope customers_write).',
  })
  async updateCustomerSubscriptions(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => GraphQLJSON) input: unknown,
    @Arg('source', () => ConsentSource, { nullable: true, defaultValue: ConsentSource.API }) source: ConsentSource,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CustomerSubscriptionsResultType> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'customers_write');
    const { customerIds, ...result } = await this.deps.consent.updateSubscriptions(storeId, input, { method: source, actor: actorOf(ctx.auth) });
    return { ...result, customerIds, restJson: JSON.stringify(result) };
  }

  @Mutation(() => CustomerType, { description: 'Sets one consent of a customer (a merged id answers as its surviving profile); an older `at` than the stored change changes nothing (scope customers_write).' })
  async setCustomerConsent(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('customerId', () => ID) customerId: string,
    @Arg('input', () => CustomerConsentInput) input: CustomerConsentInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CustomerRow | null> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'customers_write');
    if (input.channel === 'email' && input.kind === 'marketing' && input.status === 'confirmed') {
      throw invalid('validation-failed', 'Email marketing is subscribed or unsubscribed (it is confirmed on subscribe).', [{ pointer: '/input/status', detail: 'must be subscribed or unsubscribed for email' }]);
    }
    if (input.kind === 'transactional' && input.status === 'confirmed') {
      throw invalid('validation-failed', 'Transactional consent is subscribed or unsubscribed.', [{ pointer: '/input/status', detail: 'must be subscribed or unsubscribed for transactional' }]);
    }
    await this.deps.consent.set(storeId, customerId, {
      channel: input.channel,
      kind: input.kind,
      status: input.status,
      at: input.at ?? undefined,
      method: input.source ?? ConsentSource.DASHBOARD,
      actor: actorOf(ctx.auth),
    });
    return this.deps.customers.lookup(storeId, { id: customerId });
  }

  @Mutation(() => CustomerType, { description: 'Suppresses a channel of a customer: nothing is sent on it, transactional included, until unsuppressed (scope customers_write).' })
  async suppressCustomer(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('customerId', () => ID) customerId: string,
    @Arg('channel', () => ConsentChannelEnum) channel: ConsentChannel,
    @Arg('reason', () => String, { nullable: true, defaultValue: 'manual' }) reason: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CustomerRow | null> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'customers_write');
    if (typeof reason !== 'string' || !reason.trim() || reason.length > REASON_MAX) {
      throw invalid('validation-failed', 'The reason is invalid.', [{ pointer: '/reason', detail: `must be a non-empty string of at most ${REASON_MAX} characters` }]);
    }
    await this.deps.consent.suppress(storeId, customerId, channel, reason.trim());
    return this.deps.customers.lookup(storeId, { id: customerId });
  }

  @Mutation(() => CustomerType, { description: "Lifts a channel's suppression (scope customers_write)." })
  async unsuppressCustomer(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('customerId', () => ID) customerId: string,
    @Arg('channel', () => ConsentChannelEnum) channel: ConsentChannel,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CustomerRow | null> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'customers_write');
    await this.deps.consent.suppress(storeId, customerId, channel, null);
    return this.deps.customers.lookup(storeId, { id: customerId });
  }

  @Mutation(() => CustomerType, {
    description:
      "Merges duplicate profiles of one person into `into`: events, flow runs, messages, consent (an unsubscribe is never undone), its history and suppressions move to it; orders and returns follow (the returns subgraph relinks them, normally within a second); the merged ids answer as the surviving profile from then on (scope customers_write).",
  })
  async mergeCustomers(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('into', () => ID) into: string,
    @Arg('from', () => [ID]) from: string[],
    @Ctx() ctx: GraphQLContext,
  ): Promise<CustomerRow> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'customers_write');
    return this.deps.merges.merge(storeId, into, from, actorOf(ctx.auth));
  }

  @FieldResolver(() => [CustomerConsentType], { description: 'Consent per channel and kind (all four; never_subscribed where nothing was recorded).' })
  async consent(@Root() customer: CustomerRow, @Ctx() ctx: GraphQLContext): Promise<CustomerConsentType[]> {
    return consentMatrix(await consentLoader(ctx, this.deps.consent).load(customer.id));
  }

  @FieldResolver(() => ConsentChangeConnection, { description: 'Every consent change, newest first: who, when, how.' })
  async consentHistory(
    @Root() customer: CustomerRow,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<ConsentChangeRow>> {
    return toConnection(await this.deps.consent.history(customer.id, pageRequest(first, after, { list: 'consent-history', customerId: customer.id }, selects(info, 'totalCount'))));
  }

  @FieldResolver(() => [ChannelSuppressionType], { description: 'Suppressed channels (nothing is sent on them).' })
  async suppressions(@Root() customer: CustomerRow, @Ctx() ctx: GraphQLContext): Promise<SuppressionRow[]> {
    return suppressionLoader(ctx, this.deps.consent).load(customer.id);
  }

  @FieldResolver(() => [ID], { description: 'Ids of profiles merged into this one: they answer as this profile.' })
  async mergedIds(@Root() customer: CustomerRow): Promise<string[]> {
    return this.deps.customers.mergedInto(customer.id);
  }
}
