import { Arg, Ctx, FieldResolver, ID, Int, Query, Resolver, Root } from 'type-graphql';
import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import { hasScope, scopeForbidden, type Principal } from '../../platform/auth.js';
import { authorizeStoreAccess } from '../../platform/graphql/authorize.js';
import { toConnection, type Connection } from '../../platform/graphql/connection.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import { isAppError } from '../../platform/errors.js';
import { pageRequest, type Page, type PageRequest } from '../../platform/pagination.js';
import { WebhookDeliveryConnection, WebhookDeliveryType, WebhookSubscriptionConnection, WebhookSubscriptionType } from './webhook.type.js';

/** A subscription's REST document (webhooks/webhook.schemas.ts), as the webhooks module answers. */
export interface WebhookDocumentLike {
  id: string;
  callback: { url: string; auth: { bearer: { token: string } } | null };
  topic: string;
  kind: string;
  externalId: string | null;
  disabled: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface DeliveryDocumentLike {
  id: string;
  webhookId: string;
  eventId: string;
  type: string;
  subjectId: string;
  attempt: number;
  status: string;
  responseStatus: number | null;
  durationMs: number | null;
  error: string | null;
  createdAt: string;
}

/**
 * What the graph reads of webhook subscriptions: the webhooks module's service (`webhooks/`), given
 * to this subgraph at start-up. Its lookups are scoped to the caller (another account's
 * subscription is not found), the same code as the REST routes.
 */
export interface WebhookReads {
  list(storeId: string, page: PageRequest): Promise<Page<WebhookDocumentLike>>;
  get(principal: Principal, id: string): Promise<WebhookDocumentLike>;
  deliveries(principal: Principal, id: string, page: PageRequest): Promise<Page<DeliveryDocumentLike>>;
}

export interface WebhookResolverDeps {
  webhooks: WebhookReads | undefined;
  accounts: AccountsService;
}

function subscription(doc: WebhookDocumentLike): WebhookSubscriptionType {
  return {
    id: doc.id,
    topic: doc.topic,
    url: doc.callback.url,
    maskedToken: doc.callback.auth?.bearer.token ?? null,
    kind: doc.kind,
    externalId: doc.externalId,
    disabled: doc.disabled,
    createdAt: new Date(doc.createdAt),
    updatedAt: new Date(doc.updatedAt),
  };
}

function delivery(doc: DeliveryDocumentLike): WebhookDeliveryType {
  return { ...doc, createdAt: new Date(doc.createdAt) };
}

/** Webhook subscriptions and their deliveries for dashboards (scope `webhooks_read`). Writes are REST. */
@Resolver(() => WebhookSubscriptionType)
export class WebhookResolver {
  constructor(private readonly deps: WebhookResolverDeps) {}

  private service(): WebhookReads {
    if (!this.deps.webhooks) throw new Error('webhook subscriptions are not served by this process');
    return this.deps.webhooks;
  }

  @Query(() => WebhookSubscriptionConnection, { description: "The store's webhook subscriptions, newest first." })
  async webhooks(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Connection<WebhookSubscriptionType>> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'webhooks_read');
    const page = await this.service().list(storeId, pageRequest(first, after, { list: 'webhooks', storeId }));
    return toConnection({ ...page, items: page.items.map(subscription) });
  }

  @Query(() => WebhookSubscriptionType, { nullable: true, description: 'One subscription; null when unknown or of another account.' })
  async webhook(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<WebhookSubscriptionType | null> {
    if (!hasScope(ctx.auth, 'webhooks_read')) throw scopeForbidden('webhooks_read');
    try {
      return subscription(await this.service().get(ctx.auth, id));
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
    const page = await this.service().deliveries(ctx.auth, sub.id, pageRequest(first, after, { list: 'webhook-deliveries', webhookId: sub.id }));
    return toConnection({ ...page, items: page.items.map(delivery) });
  }
}
