import 'reflect-metadata';
import type { GraphQLSchema } from 'graphql';
import { AccountsService } from '../platform/accounts/accounts.service.js';
import { CredentialCache } from '../platform/accounts/credential-cache.js';
import type { Config, SubgraphName } from '../platform/config.js';
import { setCursorSigningKey } from '../platform/api/cursor.js';
import { openDatabase, untilAvailable, type Database } from '../platform/db/database.js';
import { DatabaseWatch } from '../platform/db/database-watch.js';
import { createOrm, migrate, poolOf, type DbModule, type Orm } from '../platform/db/orm.js';
import { poolServes } from '../platform/db/pool.js';
import { onPrimary, ReplicaReads, ReplicaWatch, type HeavyReads } from '../platform/db/replica.js';
import { registerOutboxConsumers } from '../platform/jobs/outbox-consumers.js';
import { retryInterruptedJobs, startQueue, type PgBoss } from '../platform/jobs/queue.js';
import { buildGraph, PLATFORM_GRAPH, type Contributions, type GraphName, type ModuleDefinition, type ModuleDeps } from '../platform/module.js';
import type { Logger } from '../platform/observability/logger.js';
import { registerReadinessMetric, registerRuntimeMetrics } from '../platform/observability/runtime-metrics.js';
import { inErasureOrder } from '../platform/privacy/participants.js';
import { platformDbModule } from '../platform/schema.js';
import { secretBoxOf } from '../platform/secret-box.js';
import { MODULES, OUTBOX_CONSUMERS } from './modules.js';
import { settlesWithin } from '../platform/timeouts.js';

export type Role = 'all' | 'gateway' | 'worker' | 'subgraph';

export interface RuntimeOptions {
  role: Role;
  /** For `subgraph`: which one this process serves. */
  subgraph?: SubgraphName;
  /** The database stayed unreachable for `DATABASE_LOST_EXIT_MS`: the process should exit for its supervisor. */
  onDatabaseLost?: () => void;
}

/**
 * Everything a process holds open: the database (maybe embedded), the platform's pool, accounts
 * and queue, then each module it runs (runtime.ts#startRuntime). `close()` releases them in
 * reverse order.
 */
export interface Runtime {
  config: Config;
  logger: Logger;
  database: Database;
  /** Whether the database answers right now (a dedicated connection watches it). */
  watch: DatabaseWatch;
  /** Every pool this process serves from, by part (platform, and each module with a schema of its own): readiness asks each. */
  orms: Record<string, Orm>;
  platformOrm: Orm;
  accounts: AccountsService;
  boss: PgBoss;
  adminToken: string;
  /** The graphs this process serves. */
  schemas: Partial<Record<GraphName, GraphQLSchema>>;
  /** What each module this process runs was given, by module name. */
  deps: Partial<Record<string, ModuleDeps>>;
  /** A module's services, when this process runs it (the REST facade calls some directly). */
  servicesOf<S>(definition: ModuleDefinition<S>): S | undefined;
  close(): Promise<void>;
}

/** Whether a role runs a module: worker roles run every one; a gateway, the platform graph's parts and what the facade calls. */
function runs(role: Role, definition: ModuleDefinition, subgraph?: SubgraphName): boolean {
  switch (role) {
    case 'all':
    case 'worker':
      return true;
    case 'gateway':
      return definition.graph?.graph === PLATFORM_GRAPH || definition.servesFacade === true;
    case 'subgraph':
      return definition.name === subgraph;
  }
}

/** The graphs a role serves: a gateway serves the platform graph in-process beside the remote subgraphs. */
function graphsOf(options: RuntimeOptions): GraphName[] {
  switch (options.role) {
    case 'all':
      return [...new Set(MODULES.flatMap((m) => (m.graph ? [m.graph.graph] : [])))];
    case 'gateway':
      return [PLATFORM_GRAPH];
    case 'subgraph':
      if (!options.subgraph) throw new Error('subgraph role needs a subgraph name');
      return [options.subgraph];
    case 'worker':
      return [];
  }
}

const POOL_CLOSE_MS = 5_000;

interface RunningModule {
  definition: ModuleDefinition;
  deps: ModuleDeps;
  services?: unknown;
}

/**
 * Opens what a role needs: the database, the platform schema (accounts, the outbox's consumers, the
 * admin token and cursor key), the queue; then a loop over the modules (server/modules.ts): each
 * one's pool and migrations, every module's queues, their services, the graphs, the workers and
 * the metrics, in that order.
 */
export function startRuntime(config: Config, logger: Logger, options: RuntimeOptions): Promise<Runtime> {
  // A database that cannot be reached at start (a cluster failing over, a database starting after the
  // service) is waited for, up to DATABASE_LOST_EXIT_MS: each try releases what it opened.
  return untilAvailable('start', () => openRuntime(config, logger, options), logger, config.databaseLostExitMs);
}

async function openRuntime(config: Config, logger: Logger, options: RuntimeOptions): Promise<Runtime> {
  const database = await openDatabase(config, logger);
  const runsWorkers = options.role === 'all' || options.role === 'worker';
  let boss: PgBoss | undefined;
  const watch = new DatabaseWatch({
    url: database.url,
    logger,
    restart: database.embedded ? () => database.embedded!.ensureRunning() : undefined,
    lostAfterMs: config.databaseLostExitMs,
    onLost: () => options.onDatabaseLost?.(),
    onRecovered: (downSince) => {
      if (boss && runsWorkers) void retryInterruptedJobs(boss, downSince, logger).catch((err: unknown) => logger.error({ err }, 'retrying interrupted jobs failed'));
    },
  });
  const opened: Orm[] = [];
  const replicaReads: ReplicaReads[] = [];
  let replica: ReplicaWatch | undefined;
  let credentialCache: CredentialCache | undefined;
  const removeMetrics: (() => void)[] = [];
  const stopWorkers: (() => Promise<void>)[] = [];
  const close = async () => {
    // First: a database stopped on purpose below must not be started again.
    await watch.stop();
    for (const remove of removeMetrics) remove();
    // The modules' own workers (webhook deliveries, event processing, outbox consumers) finish what is in
    // flight, last started first, before the queue and the pools close.
    for (const stop of stopWorkers.reverse()) await stop().catch((err: unknown) => logger.error({ err }, 'workers stop failed'));
    await credentialCache?.stop();
    await replica?.stop();
    for (const reads of replicaReads) {
      const orm = await reads.opened();
      if (orm) opened.push(orm);
    }
    await boss?.stop({ graceful: true, close: true, timeout: config.shutdownTimeoutMs }).catch((err: unknown) => logger.error({ err }, 'queue stop failed'));
    logger.debug('queue stopped');
    // Bounded: work that outlived its request (answered at its deadline, its statement still waiting)
    // holds its connection until the statement timeout; the embedded server must still be stopped below.
    for (const orm of opened.reverse()) {
      await settlesWithin(orm.close(), POOL_CLOSE_MS).then(
        (closed) => closed || logger.warn({ ms: POOL_CLOSE_MS }, 'a database pool did not close in time; leaving it'),
        (err: unknown) => logger.error({ err }, 'orm close failed'),
      );
    }
    logger.debug('orms closed');
    await database.stop();
  };
  try {
    const platformPool = Math.max(2, Math.ceil(config.dbPoolSize / 2));
    const platformOrm = await createOrm(database.url, platformDbModule, platformPool, logger, config.dbTimeouts);
    opened.push(platformOrm);
    await migrate(database.url, platformOrm, platformDbModule);
    await registerOutboxConsumers(platformOrm, OUTBOX_CONSUMERS);
    const accounts = new AccountsService(platformOrm);
    credentialCache = new CredentialCache(database.url, logger, config.dbTimeouts);
    await credentialCache.start();
    accounts.useCache(credentialCache);
    const adminToken = await accounts.adminToken(config.adminToken);
    setCursorSigningKey(await accounts.cursorKey());
    boss = await startQueue(database.url, logger, { supervise: runsWorkers, poolSize: config.dbPoolSize, timeouts: config.dbTimeouts });

    const secrets = secretBoxOf(accounts);
    if (config.databaseReplicaUrl) {
      replica = new ReplicaWatch(config.databaseReplicaUrl, config.replicaMaxLagSeconds, config.dbTimeouts, logger);
      await replica.start();
    }
    // Each module's heavy reads: on its own small pool on the replica (opened on first use), else on its primary pool.
    const heavyReadsOf = (orm: Orm, db: DbModule): HeavyReads => {
      if (!replica) return onPrimary(orm);
      const reads = new ReplicaReads(orm, () => createOrm(replica!.url, db, Math.max(2, Math.ceil(config.dbPoolSize / 2)), logger, config.dbTimeouts, 'replica'), replica, logger);
      replicaReads.push(reads);
      return reads;
    };
    const contributions: Contributions = { subjects: {}, privacy: [], consumers: OUTBOX_CONSUMERS, graphs: {} };
    const pools: Parameters<typeof registerRuntimeMetrics>[1] = { platform: { orm: platformOrm, max: platformPool } };
    const running: RunningModule[] = [];
    for (const definition of MODULES.filter((m) => runs(options.role, m, options.subgraph))) {
      let orm = platformOrm;
      if (definition.db) {
        orm = await createOrm(database.url, definition.db, config.dbPoolSize, logger, config.dbTimeouts);
        opened.push(orm);
        await migrate(database.url, orm, definition.db);
        pools[definition.name] = { orm, max: config.dbPoolSize };
      }
      const heavyReads = heavyReadsOf(orm, definition.db ?? platformDbModule);
      running.push({ definition, deps: { orm, heavyReads, boss, accounts, config, logger: logger.child({ module: definition.name }), secrets, contributions } });
    }
    // Every role may send any module's jobs (the facade too), so every role declares every queue.
    for (const definition of MODULES) await definition.queues?.(boss);
    for (const module of running) module.services = module.definition.services(module.deps);
    contributions.subjects = Object.assign({}, ...running.map((m) => m.definition.subjects?.(m.services) ?? {}));
    contributions.privacy = inErasureOrder(running.flatMap((m) => m.definition.privacy?.(m.services) ?? []));

    const schemas: Partial<Record<GraphName, GraphQLSchema>> = {};
    for (const graph of graphsOf(options)) schemas[graph] = (await buildGraph(graph, running)).schema;
    Object.assign(contributions.graphs, schemas);
    if (runsWorkers) {
      for (const { definition, services } of running) {
        const stop = await definition.workers?.(services);
        if (stop) stopWorkers.push(stop);
      }
    }
    // Read at scrape time (GET /metrics): queue depths and ages, pool use, and what each module measures.
    removeMetrics.push(registerRuntimeMetrics(boss, pools));
    for (const { definition, services } of running) {
      const remove = definition.metrics?.(services);
      if (remove) removeMetrics.push(remove);
    }
    watch.start();
    const orms = Object.fromEntries(Object.entries(pools).map(([name, pool]) => [name, pool!.orm]));
    const runtime: Runtime = {
      config,
      logger,
      database,
      watch,
      orms,
      platformOrm,
      accounts,
      boss,
      adminToken,
      schemas,
      deps: Object.fromEntries(running.map((m) => [m.definition.name, m.deps])),
      servicesOf: <S>(definition: ModuleDefinition<S>) => running.find((m) => m.definition === definition)?.services as S | undefined,
      close,
    };
    removeMetrics.push(registerReadinessMetric(async () => readinessChecks(await checkReady(runtime))));
    return runtime;
  } catch (err) {
    await close();
    throw err;
  }
}

export interface Readiness {
  database: boolean;
  queue: boolean;
  /** Each pool this process serves from gives out a connection that answers. */
  pools: Record<string, boolean>;
}

/**
 * Readiness: the database answers, the queue's schema is reachable, and every pool gives out a
 * working connection in time (a pool that cannot would leave its requests waiting).
 */
export async function checkReady(runtime: Runtime): Promise<Readiness> {
  const names = Object.keys(runtime.orms);
  if (!runtime.watch.available) return { database: false, queue: false, pools: Object.fromEntries(names.map((name) => [name, false])) };
  const { acquireMs } = runtime.config.dbTimeouts;
  const [queue, ...serving] = await Promise.all([
    runtime.boss.isInstalled().catch(() => false),
    ...names.map((name) => poolServes(poolOf(runtime.orms[name]!), acquireMs)),
  ]);
  const pools = Object.fromEntries(names.map((name, i) => [name, serving[i]!]));
  return { database: serving.every(Boolean), queue, pools };
}

/** The checks of a readiness as flat metric labels: `database`, `queue`, `pool:<name>`. */
export function readinessChecks({ database, queue, pools }: Readiness): Record<string, boolean> {
  return { database, queue, ...Object.fromEntries(Object.entries(pools).map(([name, ok]) => [`pool:${name}`, ok])) };
}
