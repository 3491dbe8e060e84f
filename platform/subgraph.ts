import type { AccountsService } from './accounts/accounts.service.js';
import type { Config, SubgraphName } from './config.js';
import type { DbModule, Orm } from './db/orm.js';
import type { FederatedSchema } from './graphql/build-federated-schema.js';
import type { Logger } from './observability/logger.js';
import type { OutboxConsumerDeclaration } from './jobs/outbox-consumers.js';
import type { OutboxContract } from './jobs/outbox.js';
import type { PrivacyParticipants } from './privacy/participants.js';
import type { PgBoss } from './jobs/queue.js';

/**
 * The graph's fourth subgraph: account administration, dead letters and webhook dashboards. It has
 * no process of its own: every process that runs the gateway serves it in-process
 * (server/platform-subgraph.ts), in split mode too.
 */
export const PLATFORM_GRAPH = 'platform';

/** The subgraphs composed into the supergraph. */
export type GraphName = SubgraphName | typeof PLATFORM_GRAPH;

/** Stops a subgraph's workers, letting the work in flight finish. */
export type StopWorkers = () => Promise<void>;

/** What a subgraph gets from the platform at start-up. */
export interface SubgraphDeps {
  orm: Orm;
  boss: PgBoss;
  accounts: AccountsService;
  config: Config;
  logger: Logger;
}

/** One subgraph as the process runner sees it: its database slice, its schema and its jobs. */
export interface SubgraphDefinition {
  name: SubgraphName;
  db: DbModule;
  /** The outbox events it publishes (its contracts with consumers in other subgraphs). */
  publishes: readonly OutboxContract[];
  /** Its readers of the outbox (every role registers their positions, worker roles run them). */
  consumes?: readonly OutboxConsumerDeclaration[];
  /** Without deps only the SDL is meaningful (composition). */
  build(deps?: SubgraphDeps): Promise<FederatedSchema>;
  /** Creates the subgraph's queues (every role that sends jobs needs them). */
  createQueues?(boss: PgBoss): Promise<void>;
  /** Starts the subgraph's workers (worker roles); returns the function that stops what pg-boss does not (outbox consumers, lanes). */
  startWorkers?(deps: SubgraphDeps): Promise<StopWorkers>;
  /** Its part in customer erasures and retention (worker role; platform/privacy). */
  privacy?(deps: SubgraphDeps): PrivacyParticipants;
}
