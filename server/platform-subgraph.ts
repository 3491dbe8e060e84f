import { AccountResolver } from '../platform/accounts/account.resolver.js';
import type { AccountsService } from '../platform/accounts/accounts.service.js';
import { DeadLetterResolver } from '../platform/jobs/dead-letters.resolver.js';
import { buildFederatedSchema, type FederatedSchema } from '../platform/graphql/build-federated-schema.js';
import type { ErasureRequests } from '../platform/privacy/erasure.service.js';
import { PrivacyResolver } from '../platform/privacy/privacy.resolver.js';
import type { RetentionSettings } from '../platform/privacy/retention.js';
import type { PgBoss } from '../platform/jobs/queue.js';
import { WebhookResolver, WebhookStatsResolver, type WebhookSubscriptions } from '../webhooks/index.js';

export interface PlatformSubgraphDeps {
  accounts: AccountsService;
  boss: PgBoss;
  webhooks: WebhookSubscriptions;
  erasures: ErasureRequests;
  retention: RetentionSettings;
}

const RESOLVERS = [AccountResolver, DeadLetterResolver, WebhookResolver, PrivacyResolver, WebhookStatsResolver] as const;

/**
 * The platform subgraph (platform/subgraph.ts#PLATFORM_GRAPH): the platform's admin and privacy resolvers and the
 * webhooks module's dashboard resolver, assembled here because webhooks sits above the platform.
 * Without deps only the SDL is meaningful (composition).
 */
export function platformSubgraph(deps?: PlatformSubgraphDeps): Promise<FederatedSchema> {
  return buildFederatedSchema({
    resolvers: [...RESOLVERS],
    instances: deps && [
      new AccountResolver(deps.accounts),
      new DeadLetterResolver(deps.boss),
      new WebhookResolver(deps),
      new PrivacyResolver(deps),
      new WebhookStatsResolver({ orm: deps.webhooks.orm, accounts: deps.accounts }),
    ],
  });
}
