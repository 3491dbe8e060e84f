import 'reflect-metadata';
import type { GraphQLSchema } from 'graphql';
import { AccountsService } from '../platform/accounts/accounts.service.js';
import { CredentialCache } from '../platform/accounts/credential-cache.js';
import { platformDbModule } from '../platform/schema.js';
import type { Config, SubgraphName } from '../platform/config.js';
import { SUBGRAPH_NAMES } from '../platform/config.js';
import { setCursorSigningKey } from '../platform/api/cursor.js';
import { openDatabase, type Database } from '../platform/db/database.js';
import { DatabaseWatch } from '../platform/db/database-watch.js';
import { createOrm, migrate, poolOf, type Orm } from '../platform/db/orm.js';
import { poolServes } from '../platform/db/pool.js';
import type { Logger } from '../platform/observability/logger.js';
import { registerOutboxConsumers, registerOutboxMetrics, startOutboxRetention } from '../platform/jobs/outbox-consumers.js';
import { deadLetterQueue } from '../platform/jobs/dead-letters.js';
import { createPrivacyQueues, startPrivacyWorkers } from '../platform/privacy/index.js';
import { ErasureRequests } from '../platform/privacy/erasure.service.js';
import type { PrivacyParticipants } from '../platform/privacy/participants.js';
import { outboxErasure } from '../platform/privacy/outbox.privacy.js';
import { queueErasure } from '../platform/privacy/queue.privacy.js';
import { RetentionSettings } from '../platform/privacy/retention.js';
import { openSecretBox, type SecretBox } from '../platform/secret-box.js';
import { retryInterruptedJobs, startQueue, type PgBoss } from '../platform/jobs/queue.js';
import { registerReadinessMetric, registerRuntimeMetrics } from '../platform/observability/runtime-metrics.js';
import type { GraphName, SubgraphDeps } from '../platform/subgraph.js';
import { SUBGRAPHS } from '../subgraphs/index.js';
import { CUSTOM_EVENTS_QUEUE } from '../subgraphs/events/public.js';
import { inboundShipmentDocumentsPage, inventoryItemDocumentsPage } from '../subgraphs/inventory/public.js';
import { returnDocumentsPage } from '../subgraphs/returns/public.js';
import { createWebhookQueues, registerWebhookMetrics, startWebhookWorkers, webhookPrivacy, webhookSubscriptions, webhooksDbModule, WEBHOOKS_CONSUMER, type BackfillSources, type WebhookSubscriptions } from '../webhooks/index.js';
import { platformSubgraph } from './platform-subgraph.js';

/** Every reader of the outbox: registered by every role from the first start, so none misses an event. */
export const OUTBOX_CONSUMERS = [...SUBGRAPH_NAMES.flatMap((name) => SUBGRAPHS[name].consumes ?? []), WEBHOOKS_CONSUMER];

export type Role = 'all' | 'gateway' | 'worker' | 'subgraph';

export interface RuntimeOptions {
  role: Role;
  /** For `subgraph`: which one this process serves. */
  subgraph?: SubgraphName;
  /** The database stayed unreachable for `DATABASE_LOST_EXIT_MS`: the process should exit for its supervisor. */
  onDatabaseLost?: () => void;
}

/**
 * Everything a process holds open: the database (maybe embedded), one ORM per
 * schema it uses, the queue, and the built subgraph schemas. `close()` releases
 * them in reverse order.
 */
export interface Runtime {
  config: Config;
  logger: Logger;
  database: Database;
  /** Whether the database answers right now (a dedicated connection watches it). */
  watch: DatabaseWatch;
  /** Every ORM this process serves from, by part (platform, its subgraphs, webhooks): readiness asks each pool. */
  orms: Record<string, Orm>;
  platformOrm: Orm;
  accounts: AccountsService;
  boss: PgBoss;
  adminToken: string;
  /** The subgraphs this process serves; gateway roles add the platform subgraph. */
  schemas: Partial<Record<GraphName, GraphQLSchema>>;
  deps: Partial<Record<SubgraphName, SubgraphDeps>>;
  /** Webhook subscriptions (roles that serve REST or run workers). */
  webhooks?: WebhookSubscriptions;
  close(): Promise<void>;
}

function subgraphsFor(options: RuntimeOptions): SubgraphName[] {
  switch (options.role) {
    case 'all':
    case 'worker':
      return [...SUBGRAPH_NAMES];
    case 'subgraph':
      if (!options.subgraph) throw new Error('subgraph role needs a subgraph name');
      return [options.subgraph];
    case 'gateway':
      return [];
  }
}

const POOL_CLOSE_MS = 5_000;

/** True when `work` settles within `ms`, false when it is still pending then. */
async function bounded(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

export async function startRuntime(config: Config, logger: Logger, options: RuntimeOptions): Promise<Runtime> {
  const database = await openDatabase(config, logger);
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
  const runsWorkers = options.role === 'all' || options.role === 'worker';
  const opened: Orm[] = [];
  let boss: PgBoss | undefined;
  let credentialCache: CredentialCache | undefined;
  const removeMetrics: (() => void)[] = [];
  let stopWebhooks: (() => Promise<void>) | undefined;
  const stopWorkers: (() => Promise<void>)[] = [];
  const close = async () => {
    // First: a database stopped on purpose below must not be started again.
    await watch.stop();
    for (const remove of removeMetrics) remove();
    // Deliveries in flight finish (or their leases run out) before the queue and pools close.
    await stopWebhooks?.().catch((err: unknown) => logger.error({ err }, 'webhook workers stop failed'));
    // So do the transactions of the subgraphs' own workers (event processing, outbox consumers).
    for (const stop of stopWorkers.reverse()) await stop().catch((err: unknown) => logger.error({ err }, 'workers stop failed'));
    await credentialCache?.stop();
    await boss?.stop({ graceful: true, close: true, timeout: config.shutdownTimeoutMs }).catch((err: unknown) => logger.error({ err }, 'queue stop failed'));
    logger.debug('queue stopped');
    // Bounded: work that outlived its request (answered at its deadline, its statement still waiting)
    // holds its connection until the statement timeout; the embedded server must still be stopped below.
    for (const orm of opened.reverse()) {
      await bounded(orm.close(), POOL_CLOSE_MS).then(
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

    const names = subgraphsFor(options);
    const pools: Parameters<typeof registerRuntimeMetrics>[1] = { platform: { orm: platformOrm, max: platformPool } };
    const deps: Partial<Record<SubgraphName, SubgraphDeps>> = {};
    const schemas: Partial<Record<GraphName, GraphQLSchema>> = {};
    // The facade accepts custom events itself (the events subgraph's acceptance, no GraphQL hop), so it needs that database slice.
    const withDatabase = options.role === 'gateway' ? [...names, 'events' as const] : names;
    for (const name of withDatabase) {
      const definition = SUBGRAPHS[name];
      const orm = await createOrm(database.url, definition.db, config.dbPoolSize, logger, config.dbTimeouts);
      opened.push(orm);
      await migrate(database.url, orm, definition.db);
      deps[name] = { orm, boss, accounts, config, logger: logger.child({ subgraph: name }) };
      pools[name] = { orm, max: config.dbPoolSize };
    }
    // Read at scrape time (GET /metrics): queue depths and ages, pool use.
    removeMetrics.push(registerRuntimeMetrics(boss, pools));
    removeMetrics.push(registerOutboxMetrics(platformOrm, OUTBOX_CONSUMERS));
    // Every role may send any subgraph's jobs (the facade too), so every role declares the queues.
    for (const name of SUBGRAPH_NAMES) await SUBGRAPHS[name].createQueues?.(boss);
    await createWebhookQueues(boss);
    await createPrivacyQueues(boss);
    let box: Promise<SecretBox> | undefined;
    const erasures = new ErasureRequests(platformOrm, boss, () => (box ??= openSecretBox(accounts)));
    const retention = new RetentionSettings(platformOrm);
    // Webhooks: subscriptions are served by the gateway roles (REST, and the platform subgraph's dashboard
    // queries); the worker roles deliver.
    let webhooks: WebhookSubscriptions | undefined;
    let startWebhooks: (() => Promise<() => Promise<void>>) | undefined;
    let webhooksParticipants: PrivacyParticipants | undefined;
    if (options.role !== 'subgraph') {
      const webhooksOrm = await createOrm(database.url, webhooksDbModule, config.dbPoolSize, logger, config.dbTimeouts);
      opened.push(webhooksOrm);
      await migrate(database.url, webhooksOrm, webhooksDbModule);
      pools.webhooks = { orm: webhooksOrm, max: config.dbPoolSize };
      removeMetrics.push(registerWebhookMetrics(webhooksOrm));
      // Backfills read the subjects through their owning subgraphs (the worker roles hold every subgraph's pool).
      const returnsOrm = deps.returns?.orm;
      const inventoryOrm = deps.inventory?.orm;
      const backfillSources: BackfillSources = {
        ...(returnsOrm && { return: (storeId, after, limit) => returnDocumentsPage(returnsOrm, storeId, after, limit) }),
        ...(inventoryOrm && {
          inbound_shipment: (storeId, after, limit) => inboundShipmentDocumentsPage(inventoryOrm, storeId, after, limit),
          inventory_item: (storeId, after, limit) => inventoryItemDocumentsPage(inventoryOrm, storeId, after, limit),
        }),
      };
      const webhookDeps = { orm: webhooksOrm, boss, accounts, config, logger, backfillSources };
      webhooks = await webhookSubscriptions(webhookDeps);
      if (options.role !== 'worker') schemas.platform = (await platformSubgraph({ accounts, boss, webhooks, erasures, retention })).schema;
      if (runsWorkers) startWebhooks = () => startWebhookWorkers(webhookDeps);
      webhooksParticipants = webhookPrivacy(webhooksOrm);
    }
    for (const name of names) {
      if (options.role !== 'worker') schemas[name] = (await SUBGRAPHS[name].build(deps[name])).schema;
      const stop = runsWorkers ? await SUBGRAPHS[name].startWorkers?.(deps[name]!) : undefined;
      if (stop) stopWorkers.push(stop);
    }
    if (runsWorkers) {
      const stopRetention = startOutboxRetention(platformOrm, logger, config.outboxKeepSeconds);
      stopWorkers.unshift(async () => stopRetention());
    }
    if (startWebhooks) stopWebhooks = await startWebhooks();
    if (runsWorkers) {
      // Erasure order (platform/privacy/participants.ts): the customer data, then the copies of it.
      const participants: PrivacyParticipants[] = [
        SUBGRAPHS.events.privacy?.(deps.events!) ?? {},
        SUBGRAPHS.returns.privacy?.(deps.returns!) ?? {},
        { erasure: queueErasure(platformOrm, [CUSTOM_EVENTS_QUEUE, deadLetterQueue(CUSTOM_EVENTS_QUEUE)]) },
        { erasure: outboxErasure(platformOrm) },
        webhooksParticipants ?? {},
      ];
      await startPrivacyWorkers({ boss, erasures, retention, participants, retentionCron: config.retentionCron, logger });
    }
    watch.start();
    const orms = Object.fromEntries(Object.entries(pools).map(([name, pool]) => [name, pool!.orm]));
    const runtime: Runtime = { config, logger, database, watch, orms, platformOrm, accounts, boss, adminToken, schemas, deps, webhooks, close };
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
