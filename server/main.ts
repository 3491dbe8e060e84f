import 'reflect-metadata';
import type { ApolloGateway } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import type { Server } from 'node:http';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { loadConfig, StartupError, SUBGRAPH_NAMES, type Config, type SubgraphName } from '../platform/config.js';
import type { GraphQLContext } from '../platform/graphql/context.js';
import { createLogger, type Logger } from '../platform/observability/logger.js';
import { shutdownTracing, startTracing, tracingEnabled } from '../platform/observability/tracing.js';
import { createGateway, createGraphQLServer, errorLogPlugin, GRAPHQL_SERVER_DEFAULTS, type SubgraphTargets } from '../gateway/gateway.js';
import { createHttpApp } from './http/http-app.js';
import { checkReady, startRuntime, type Role, type Runtime } from './runtime.js';
import { eventsSubgraph } from '../subgraphs/events/index.js';
import { webhooksModule } from '../webhooks/index.js';

export interface RunningService {
  runtime: Runtime;
  server?: Server;
  port?: number;
  stop(): Promise<void>;
}

/** Prints the demo credentials once, on the first start against an empty database. */
async function announceDemoAccount(runtime: Runtime, port: number): Promise<void> {
  if ((await runtime.accounts.accountCount()) > 0) return;
  if (!(await runtime.accounts.claimOnce('demo_account_created'))) return;
  const demo = await runtime.accounts.createAccount({ name: 'Demo merchant', storeName: 'Demo store' });
  const base = `http://localhost:${port}`;
  process.stdout.write(
    [
      '',
      'A demo account was created (shown once, keep these):',
      `  account id   ${demo.accountId}`,
      `  store id     ${demo.storeId}`,
      `  API secret   ${demo.apiSecret}`,
      `  compat key   ${demo.compatKey}`,
      `  admin token  ${runtime.adminToken}`,
      '',
      'Try it:',
      `  curl -H "Authorization: Bearer ${demo.apiSecret}" ${base}/v2.2/stores/${demo.storeId}/returns`,
      '',
      '',
    ].join('\n'),
  );
}

function listen(server: NetServer, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') {
        reject(new StartupError(`Port ${port} on ${host} is already in use (another instance of the service, or another program). Stop it, or choose another port: PORT=${port + 1} npm start`));
      } else if (err.code === 'EACCES') {
        reject(new StartupError(`Port ${port} on ${host} needs privileges this user lacks. Choose a port above 1023: PORT=4000 npm start`));
      } else reject(err);
    });
    server.listen(port, host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

/** The port this role serves HTTP on (none for a worker; 0 asks the system for one). */
function portFor(role: Role, config: Config, subgraph?: SubgraphName): number | undefined {
  if (role === 'worker') return undefined;
  return role === 'subgraph' ? config.subgraphPorts[subgraph!] : config.port;
}

/**
 * Fails a start on a port already taken before the database and the workers start: the one line
 * about the port comes at once, not after an embedded PostgreSQL was started (and stopped) for
 * nothing. Listening later still reports a port taken in between.
 */
async function checkPortFree(port: number | undefined, host: string): Promise<void> {
  if (!port) return;
  const probe = createNetServer();
  await listen(probe, port, host);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}

/** Stops accepting, lets in-flight requests finish (bounded), then drops what is left. */
function closeServer(server: Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}

interface GraphQLServing {
  server: ApolloServer<GraphQLContext>;
  /** Gateway roles: the gateway behind `server`, which the REST facade also executes on. */
  gateway?: ApolloGateway;
}

function graphqlFor(role: Role, runtime: Runtime, subgraph?: SubgraphName): GraphQLServing | undefined {
  const { config, logger } = runtime;
  if (role === 'all' || role === 'gateway') {
    const targets: SubgraphTargets =
      role === 'all' ? { kind: 'local', schemas: runtime.schemas } : { kind: 'remote', urls: config.subgraphUrls, platform: runtime.schemas.platform! };
    const gateway = createGateway(targets);
    return { server: createGraphQLServer(gateway, { introspection: !config.isProduction, logger }), gateway };
  }
  if (role === 'subgraph' && subgraph) {
    const server = new ApolloServer<GraphQLContext>({
      ...GRAPHQL_SERVER_DEFAULTS,
      schema: runtime.schemas[subgraph]!,
      introspection: !config.isProduction,
      // Traces are for Apollo's hosted reporting, which this service does not use.
      plugins: [errorLogPlugin(), ApolloServerPluginInlineTraceDisabled()],
    });
    return { server };
  }
  return undefined;
}

/** Starts one process of the given role; `stop()` is the graceful shutdown. */
export async function startService(
  config: Config,
  logger: Logger,
  role: Role,
  subgraph?: SubgraphName,
  options: { onDatabaseLost?: () => void } = {},
): Promise<RunningService> {
  await checkPortFree(portFor(role, config, subgraph), config.host);
  const runtime = await startRuntime(config, logger, { role, subgraph, onDatabaseLost: options.onDatabaseLost });
  try {
    return await serve(runtime, role, subgraph);
  } catch (err) {
    // Nothing stays behind a failed start: the database this process started stops with it.
    await runtime.close();
    throw err;
  }
}

async function serve(runtime: Runtime, role: Role, subgraph?: SubgraphName): Promise<RunningService> {
  const { config, logger } = runtime;
  const serving = graphqlFor(role, runtime, subgraph);
  const graphql = serving?.server;
  let server: Server | undefined;
  let port: number | undefined;
  if (graphql) {
    await graphql.start();
    const app = createHttpApp({
      config,
      logger,
      accounts: runtime.accounts,
      adminToken: runtime.adminToken,
      graphql,
      gateway: serving?.gateway,
      events: runtime.servicesOf(eventsSubgraph)?.acceptance,
      webhooks: runtime.servicesOf(webhooksModule)?.subscriptions,
      messaging: runtime.servicesOf(eventsSubgraph)?.messaging,
      subgraphServer: role === 'subgraph',
      platformOrm: runtime.platformOrm,
      ready: () => checkReady(runtime),
      databaseAvailable: () => runtime.watch.available,
    });
    const { createServer } = await import('node:http');
    server = createServer(app);
    server.keepAliveTimeout = 65_000;
    try {
      port = await listen(server, portFor(role, config, subgraph)!, config.host);
    } catch (err) {
      await graphql.stop();
      throw err;
    }
    const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}/`;
    logger.info({ role, subgraph, port, url }, 'listening');
    if ((role === 'all' || role === 'gateway') && config.demoAccount) await announceDemoAccount(runtime, port);
  }
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (server) await closeServer(server, config.shutdownTimeoutMs);
      logger.debug('http server closed');
      await graphql?.stop();
      logger.debug('graphql stopped');
      await runtime.close();
      logger.debug('runtime closed');
    })());
  // Spans are recorded from here on (when the process was started with tracing): start-up makes no traces.
  // A split-mode subgraph traces what the gateway traces.
  startTracing({ requestsStartTraces: role !== 'subgraph' });
  return { runtime, server, port, stop };
}

function parseRole(args: string[]): { role: Role; subgraph?: SubgraphName } {
  const [role = 'all', name] = args;
  if (role === 'subgraph') {
    if (!SUBGRAPH_NAMES.includes(name as SubgraphName)) {
      throw new Error(`usage: start:subgraph -- <${SUBGRAPH_NAMES.join('|')}>`);
    }
    return { role, subgraph: name as SubgraphName };
  }
  if (role !== 'all' && role !== 'gateway' && role !== 'worker') throw new Error(`unknown role "${role}" (all, gateway, worker, subgraph <name>)`);
  return { role };
}

/** A short line for a person at a terminal (the JSON log line has the same URL for machines). */
function announceUrl(service: RunningService, config: Config): void {
  if (!service.port || !process.stdout.isTTY) return;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  process.stdout.write(`\nServing on http://${host}:${service.port}/  (REST /v2.2, GraphQL /graphql, API reference /docs). Ctrl-C stops it.\n\n`);
}

/**
 * Under `npm start`, npm is the process a supervisor or a terminal signals. npm passes SIGTERM and
 * SIGINT on to us (the scripts `exec` node, so no shell sits between); should npm go away without
 * doing so (killed outright), we are re-parented, and stop as if signalled.
 */
function followParent(onGone: () => void): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(timer);
      onGone();
    }
  }, 500);
  timer.unref();
}

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, { format: config.logFormat });
  const { role, subgraph } = parseRole(process.argv.slice(2));
  if (config.tracing && !tracingEnabled()) {
    logger.warn('OTEL_* variables ask for tracing, but the process was started without `--import ./dist/server/telemetry/telemetry-register.js` (the npm scripts add it): no traces');
  }
  // Filled once started: a database lost during the start-up stops the process all the same.
  const started: { service?: RunningService } = {};
  let signalled = false;
  const stop = (reason: string, code: number) => {
    if (signalled) return;
    signalled = true;
    logger.info({ reason }, 'shutting down');
    // A shutdown that hangs (a database that never answers) must not keep the process: bounded.
    setTimeout(() => process.exit(code || 1), config.shutdownTimeoutMs + 10_000).unref();
    (started.service?.stop() ?? Promise.resolve()).then(
      // The spans still buffered are exported before the process goes.
      () => shutdownTracing().finally(() => process.exit(code)),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  const onDatabaseLost = () => {
    logger.fatal(
      { lostForMs: config.databaseLostExitMs },
      `the database has been unreachable for ${Math.round(config.databaseLostExitMs / 1000)} s (DATABASE_LOST_EXIT_MS): exiting with code 1 so a supervisor restarts the service`,
    );
    stop('database lost', 1);
  };
  started.service = await startService(config, logger, role, subgraph, { onDatabaseLost });
  if (role === 'all' || role === 'gateway') announceUrl(started.service, config);
  const shutdown = (signal: NodeJS.Signals) => stop(signal, 0);
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  process.on('SIGHUP', shutdown);
  if (config.startedByNpm) followParent(() => stop('npm exited', 0));
}

const isEntryPoint = process.argv[1]?.endsWith('/server/main.js');
if (isEntryPoint) {
  main().catch((err: unknown) => {
    // A mistake the operator can fix gets one line saying what to do; anything else its stack.
    console.error(err instanceof StartupError ? `error: ${err.message}` : err instanceof Error ? err.stack : err);
    process.exit(1);
  });
}
