import { AccountResolver } from './accounts/account.resolver.js';
import { DeadLetterResolver } from './jobs/dead-letters.resolver.js';
import { registerOutboxMetrics, startOutboxRetention } from './jobs/outbox-consumers.js';
import { defineModule } from './module.js';
import { outboxErasure } from './privacy/outbox.privacy.js';

/**
 * The platform's own part of the graph and its housekeeping: account administration and dead letters
 * (the admin token's, in the platform subgraph), the outbox's retention and lag metrics, and the
 * outbox's copies of a person in erasures. Its tables are the platform schema the runtime opens first.
 */
export const platformModule = defineModule({
  name: 'platform',
  services: (deps) => deps,
  graph: {
    graph: 'platform',
    resolvers: [AccountResolver, DeadLetterResolver],
    instances: (deps) => [new AccountResolver(deps.accounts), new DeadLetterResolver(deps.boss)],
  },
  async workers(deps) {
    const stop = startOutboxRetention(deps.orm, deps.logger, deps.config.outboxKeepSeconds);
    return async () => stop();
  },
  privacy: (deps) => [{ erasure: outboxErasure(deps.orm) }],
  metrics: (deps) => registerOutboxMetrics(deps.orm, deps.contributions.consumers),
});
