import { ApolloGateway } from '@apollo/gateway';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { GraphQLError, Kind, type GraphQLFormattedError, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SubgraphName } from '../platform/config.js';
import { INTERNAL_ERROR_MESSAGE } from '../platform/errors.js';
import type { GraphQLContext } from '../platform/graphql/context.js';
import type { Logger } from '../platform/logger.js';
import { graphqlOperations, operationLabel } from '../platform/metrics.js';
import { projectRoot } from '../platform/project-root.js';
import { LIMITS, measure } from './complexity.js';
import { ForwardingDataSource, InProcessDataSource } from './data-sources.js';

export function readSupergraph(): string {
  return readFileSync(join(projectRoot(), 'schema', 'supergraph.graphql'), 'utf8');
}

export type SubgraphTargets = { kind: 'local'; schemas: Record<SubgraphName, GraphQLSchema> } | { kind: 'remote'; urls: Record<SubgraphName, string> };

export function createGateway(targets: SubgraphTargets, supergraphSdl = readSupergraph()): ApolloGateway {
  return new ApolloGateway({
    supergraphSdl,
    buildService: ({ name }) => {
      const subgraph = name as SubgraphName;
      if (targets.kind === 'local') return new InProcessDataSource(targets.schemas[subgraph]);
      return new ForwardingDataSource({ url: targets.urls[subgraph] });
    },
  });
}

/** Refuses operations deeper or costlier than the limits before anything executes. */
function complexityPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operation, request }) {
          if (!operation) return;
          const { depth, cost } = measure(schema, document, operation, request.variables ?? {});
          if (depth > LIMITS.maxDepth || cost > LIMITS.maxCost) {
            throw new GraphQLError(
              `Query too complex: depth ${depth} (max ${LIMITS.maxDepth}), cost ${cost} (max ${LIMITS.maxCost}).`,
              { extensions: { code: 'QUERY_TOO_COMPLEX', http: { status: 400 } } },
            );
          }
        },
      };
    },
  };
}

/** Counts each operation by name, type and outcome (`graphql_operations_total`, source "graphql"). */
function metricsPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ operation, operationName, request, document, errors, response }) {
          const failed = Boolean(errors?.length) || (response.body.kind === 'single' && Boolean(response.body.singleResult.errors?.length));
          // A document that failed validation has no resolved operation: name it as the client did.
          const named = document?.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)?.name?.value;
          graphqlOperations.inc({
            source: 'graphql',
            operation: operationLabel(operationName ?? request.operationName ?? named),
            type: operation?.operation ?? 'unknown',
            outcome: failed ? 'error' : 'success',
          });
        },
      };
    },
  };
}

/** Error codes that carry a message meant for the client; anything else is masked. */
const PUBLIC_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'UNPROCESSABLE',
  'RATE_LIMITED',
  'QUERY_TOO_COMPLEX',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'OPERATION_RESOLUTION_FAILURE',
  'BAD_REQUEST',
]);

export function formatGraphQLError(logger: Logger) {
  return (formatted: GraphQLFormattedError): GraphQLFormattedError => {
    const code = formatted.extensions?.code as string | undefined;
    if (code && PUBLIC_CODES.has(code)) {
      // Subgraph bookkeeping (serviceName) says nothing useful to a client.
      const { serviceName: _serviceName, ...extensions } = formatted.extensions ?? {};
      return { ...formatted, extensions };
    }
    logger.error({ error: formatted }, 'GraphQL error masked');
    return { message: INTERNAL_ERROR_MESSAGE, path: formatted.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  };
}

export function createGraphQLServer(gateway: ApolloGateway, options: { introspection: boolean; logger: Logger }): ApolloServer<GraphQLContext> {
  return new ApolloServer<GraphQLContext>({
    gateway,
    introspection: options.introspection,
    includeStacktraceInErrorResponses: false,
    // The process runner owns signals and stops the server as part of its ordered shutdown.
    stopOnTerminationSignals: false,
    formatError: formatGraphQLError(options.logger),
    // Cache hints are not used (responses are not cached by HTTP caches), and the default plugin's
    // per-field hook makes Apollo define a per-request closure on every context, which costs.
    // Browsers get the GraphQL explorer served from npm packages (server/developer-portal.ts), not Apollo's hosted one.
    plugins: [complexityPlugin(), metricsPlugin(), ApolloServerPluginCacheControlDisabled(), ApolloServerPluginLandingPageDisabled()],
    logger: apolloLogger(options.logger),
  });
}

/** Apollo's logger interface over the service's logger. */
export function apolloLogger(logger: Logger) {
  return {
    debug: (message: string) => logger.debug(message),
    info: (message: string) => logger.info(message),
    warn: (message: string) => logger.warn(message),
    error: (message: string) => logger.error(message),
  };
}
