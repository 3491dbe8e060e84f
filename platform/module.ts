import type { GraphQLSchema } from 'graphql';
import type { AccountsService } from './accounts/accounts.service.js';
import type { Config, SubgraphName } from './config.js';
import type { DbModule, Orm } from './db/orm.js';
import type { HeavyReads } from './db/replica.js';
import { buildFederatedSchema, type FederatedSchema, type FederatedSchemaOptions } from './graphql/build-federated-schema.js';
import type { OutboxConsumerDeclaration } from './jobs/outbox-consumers.js';
import type { OutboxContract } from './jobs/outbox.js';
import type { PgBoss } from './jobs/queue.js';
import type { Logger } from './observability/logger.js';
import type { PrivacyParticipants } from './privacy/participants.js';
import type { SecretBox } from './secret-box.js';

/**
 * The graph's fourth subgraph: account administration, dead letters, privacy requests and webhook
 * dashboards. It has no process of its own: every process that runs the gateway serves it
 * in-process, in split mode too.
 */
export const PLATFORM_GRAPH = 'platform';

/** The subgraphs composed into the supergraph. */
export type GraphName = SubgraphName | typeof PLATFORM_GRAPH;

/** Stops a module's workers, letting the work in flight finish. */
export type StopWorkers = () => Promise<void>;

/** A page of a store's subjects of one kind as their current REST documents, in id order (webhook backfills). */
type SubjectPages = (storeId: string, afterId: string | null, limit: number) => Promise<{ subjectId: string; data: unknown }[]>;

/**
 * What modules give each other, gathered by the runtime from the modules a process runs before any
 * of them serves or works. Read them when used, not when services are made: they are filled after.
 */
export interface Contributions {
  /** Current subject documents by subject kind (a webhook topic), from the module that owns them. */
  subjects: Partial<Record<string, SubjectPages>>;
  /** Every module's share of erasures and retention, in erasure order (platform/privacy/participants.ts). */
  privacy: readonly PrivacyParticipants[];
  /** Every reader of the outbox, of every module (whether this process runs it or not). */
  consumers: readonly OutboxConsumerDeclaration[];
  /**
   * The graphs this process serves, once built: a module that asks another subgraph through its
   * graph (platform/graphql/peer-graphs.ts) runs the operation on it in-process when it is here.
   */
  graphs: Partial<Record<GraphName, GraphQLSchema>>;
}

/** What the runtime gives a module: its own pool (or the platform's), the queue, and the shared services. */
export interface ModuleDeps {
  orm: Orm;
  /** Reads that tolerate seconds of lag (stats, dashboards, export scans): the read replica when there is a usable one, else `orm`. */
  heavyReads: HeavyReads;
  boss: PgBoss;
  accounts: AccountsService;
  config: Config;
  logger: Logger;
  /** The database's one secret box (platform/secret-box.ts), opened once per process on first use. */
  secrets: () => Promise<SecretBox>;
  contributions: Contributions;
}

/** A module's part of one graph: its resolver classes, and their instances made from its services. */
interface GraphPart<S> {
  graph: GraphName;
  resolvers: FederatedSchemaOptions['resolvers'];
  orphanedTypes?: FederatedSchemaOptions['orphanedTypes'];
  instances(services: S): object[];
  references?(services: S): FederatedSchemaOptions['references'];
}

/**
 * One part of the service as the runtime loads it: a subgraph, the webhooks, the platform's own
 * parts. Every hook but `services` is optional; the runtime calls them in this order: `db`
 * (opened and migrated), `queues` (every role: any role may send any module's jobs), `services`,
 * `graph` (roles that serve it), `workers` (worker roles), `metrics`. Hooks are methods, so a
 * module typed by its services is still a `ModuleDefinition` (what `MODULES` lists).
 */
export interface ModuleDefinition<S = unknown> {
  name: string;
  /** Its own PostgreSQL schema, pool and migrations; without one it works on the platform's. */
  db?: DbModule;
  /** The outbox events it publishes (its contracts with other modules' consumers and webhooks). */
  publishes?: readonly OutboxContract[];
  /** Its readers of the outbox: every role registers their positions, worker roles run them. */
  consumes?: readonly OutboxConsumerDeclaration[];
  /** Gateway processes load it too: the REST facade calls its services directly (custom event acceptance, webhook subscriptions). */
  servesFacade?: boolean;
  /** Declares its pg-boss queues. */
  queues?(boss: PgBoss): Promise<void>;
  /** Its services, made once per process; every later hook receives them. */
  services(deps: ModuleDeps): S;
  graph?: GraphPart<S>;
  /** Starts its background work; returns what stops it (pg-boss's own workers stop with pg-boss). */
  workers?(services: S): Promise<StopWorkers | void>;
  /** Its share of customer erasures and retention. */
  privacy?(services: S): readonly PrivacyParticipants[];
  /** The subject kinds whose current documents it owns (webhook backfills read them). */
  subjects?(services: S): Partial<Record<string, SubjectPages>>;
  /** Registers its metrics (read at scrape time); returns what removes them. */
  metrics?(services: S): () => void;
}

/** Declares a module, typed by its services (the runtime hands them back: `Runtime.servicesOf`). */
export function defineModule<S>(definition: ModuleDefinition<S>): ModuleDefinition<S> {
  return definition;
}

/** A module as a process holds it: its definition, and its services once made. */
export interface LoadedModule {
  definition: ModuleDefinition;
  services?: unknown;
}

/**
 * One graph from every module's part of it. With services, the schema a process serves; without
 * (composition), only its SDL is meaningful.
 */
export function buildGraph(graph: GraphName, modules: readonly LoadedModule[]): Promise<FederatedSchema> {
  const parts = modules.flatMap(({ definition, services }) => (definition.graph?.graph === graph ? [{ part: definition.graph, services }] : []));
  const made = parts.filter((p) => p.services !== undefined);
  return buildFederatedSchema({
    resolvers: parts.flatMap(({ part }) => part.resolvers) as FederatedSchemaOptions['resolvers'],
    orphanedTypes: parts.flatMap(({ part }) => part.orphanedTypes ?? []),
    instances: made.length ? made.flatMap(({ part, services }) => part.instances(services)) : undefined,
    references: Object.assign({}, ...made.map(({ part, services }) => part.references?.(services) ?? {})),
  });
}
