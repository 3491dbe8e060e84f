import { Arg, Ctx, FieldResolver, ID, Int, Query, Resolver, Root } from 'type-graphql';
import type { AccountsService } from '../platform/accounts/accounts.service.js';
import { hasScope, scopeForbidden } from '../platform/api/auth.js';
import { authorizeStoreAccess } from '../platform/graphql/authorize.js';
import { toConnection, type Connection } from '../platform/graphql/connection.js';
import type { GraphQLContext } from '../platform/graphql/context.js';
import { isAppError } from '../platform/errors.js';
import { pageRequest } from '../platform/api/pagination.js';
import type { WebhookSubscriptions } from './webhook.service.js';
import type { DeliveryDocument, WebhookDocument } from './webhook.schemas.js';
import { WebhookDeliveryConnection, WebhookDeliveryType, WebhookSubscriptionConnection, WebhookSubscriptionType } from './webhook.type.js';

/** The same service and scoping as the REST routes: another account's subscription is not found. */
export interface WebhookResolverDeps {
  webhooks: WebhookSubscriptions;
  accounts: AccountsService;
}

function subscription(doc: WebhookDocument): WebhookSubscriptionType {
  return {
    id: doc.id,
    topic: doc.topic,
    topics: doc.topics,
    eventTypes: doc.eventTypes,
    url: doc.callback.url,
    maskedToken: doc.callback.auth?.bearer.token ?? null,
    kind: doc.kind,
    externalId: doc.externalId,
    disabled: doc.disabled,
    status: doc.status,
    disabledReason: doc.disabledReason,
    disabledAt: doc.disabledAt === null ? null : new Date(doc.disabledAt),
    failingSince: doc.failingSince === null ? null : new Date(doc.failingSince),
    lastError: doc.lastError,
    successRate24h: doc.successRate24h,
    maxDeliveriesPerSecond: doc.maxDeliveriesPerSecond,
    createdAt: new Date(doc.createdAt),
    updatedAt: new Date(doc.updatedAt),
  };
}

function delivery(doc: DeliveryDocument): WebhookDeliveryType {
  return { ...doc, createdAt: new Date(doc.createdAt) };
}

/**
 * Webhook subscriptions and their deliveries for dashboards (scope `webhooks_read`), in the platform
 * subgraph (server/platform-subgraph.ts). Writes are REST.
 */
@Resolver(() => WebhookSubscriptionType)
export class WebhookResolver {
  constructor(private readonly deps: WebhookResolverDeps) {}

  @Query(() => WebhookSubscriptionConnection, { description: "The store's webhook subscriptions, newest first." })
  async webhooks(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Connection<WebhookSubscriptionType>> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'webhooks_read');
    const page = await this.deps.webhooks.list(storeId, pageRequest(first, after, { list: 'webhooks', storeId }));
    return toConnection({ ...page, items: page.items.map(subscription) });
  }

  @Query(() => WebhookSubscriptionType, { nullable: true, description: 'One subscription; null when unknown or of another account.' })
  async webhook(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<WebhookSubscriptionType | null> {
    if (!hasScope(ctx.auth, 'webhooks_read')) throw scopeForbidden('webhooks_read');
    try {
      return subscription(await this.deps.webhooks.get(ctx.auth, id));
    } catch (err) {
      if (isAppError(err) && err.slug === 'webhook-not-found') return null;
      throw err;
    }
  }

  @FieldResolver(() => WebhookDeliveryConnection, { description: 'Delivery attempts, newest first.' })
  async deliveries(
    @Root() sub: WebhookSubscriptionType,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Connection<WebhookDeliveryType>> {
    if (!hasScope(ctx.auth, 'webhooks_read')) throw scopeForbidden('webhooks_read');
    const page = await this.deps.webhooks.deliveries(ctx.auth, sub.id, pageRequest(first, after, { list: 'webhook-deliveries', webhookId: sub.id }));
    return toConnection({ ...page, items: page.items.map(delivery) });
  }
}
