import 'reflect-metadata';
import type { ApolloGateway } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginInlineTraceDisabled } from '@apollo/server/plugin/disabled';
import type { Server } from 'node:http';
import { loadConfig, SUBGRAPH_NAMES, type Config, type SubgraphName } from '../platform/config.js';
import type { GraphQLContext } from '../platform/graphql/context.js';
import { createLogger, type Logger } from '../platform/logger.js';
import { createGateway, createGraphQLServer, errorLogPlugin, formatGraphQLError, type SubgraphTargets } from '../gateway/gateway.js';
import { createHttpApp } from './http-app.js';
import { checkReady, startRuntime, type Role, type Runtime } from './runtime.js';
import { eventAcceptance } from '../subgraphs/events/public.js';

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

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
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
      role === 'all' ? { kind: 'local', schemas: runtime.schemas as Record<SubgraphName, never> } : { kind: 'remote', urls: config.subgraphUrls };
    const gateway = createGateway(targets);
    return { server: createGraphQLServer(gateway, { introspection: !config.isProduction, logger }), gateway };
  }
  if (role === 'subgraph' && subgraph) {
    const server = new ApolloServer<GraphQLContext>({
      schema: runtime.schemas[subgraph]!,
      introspection: !config.isProduction,
      includeStacktraceInErrorResponses: false,
      stopOnTerminationSignals: false,
      formatError: formatGraphQLError,
      // Traces are for Apollo's hosted reporting, which this service does not use.
      plugins: [errorLogPlugin(), ApolloServerPluginInlineTraceDisabled()],
    });
    return { server };
  }
  return undefined;
}

/** Starts one process of the given role; `stop()` is the graceful shutdown. */
export async function startService(config: Config, logger: Logger, role: Role, subgraph?: SubgraphName): Promise<RunningService> {
  const runtime = await startRuntime(config, logger, { role, subgraph });
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
      events: runtime.deps.events ? eventAcceptance(runtime.deps.events).acceptance : undefined,
      webhooks: runtime.webhooks,
      subgraphServer: role === 'subgraph',
      platformOrm: runtime.platformOrm,
      ready: () => checkReady(runtime),
    });
    const { createServer } = await import('node:http');
    server = createServer(app);
    server.keepAliveTimeout = 65_000;
    port = await listen(server, role === 'subgraph' ? config.subgraphPorts[subgraph!] : config.port, config.host);
    logger.info({ role, subgraph, port }, 'listening');
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

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const { role, subgraph } = parseRole(process.argv.slice(2));
  const service = await startService(config, logger, role, subgraph);
  let signalled = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (signalled) return;
    signalled = true;
    logger.info({ signal }, 'shutting down');
    service.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

const isEntryPoint = process.argv[1]?.endsWith('/server/main.js');
if (isEntryPoint) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.stack : err);
    process.exit(1);
  });
}
