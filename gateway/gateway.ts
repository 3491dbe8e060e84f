import { ApolloGateway } from '@apollo/gateway';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import {
  getVariableValues,
  GraphQLError,
  GraphQLScalarType,
  Kind,
  visit,
  type ASTVisitor,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValidationContext,
} from 'graphql';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SubgraphName } from '../platform/config.js';
import { PLATFORM_GRAPH, type GraphName } from '../platform/module.js';
import { databaseUnavailable, INTERNAL_ERROR_MESSAGE, isDatabaseUnavailable, PUBLIC_GRAPHQL_CODES, QUERY_TOO_COMPLEX } from '../platform/errors.js';
import type { GraphQLContext } from '../platform/graphql/context.js';
import { CUSTOM_SCALARS } from '../platform/graphql/scalars.js';
import type { Logger } from '../platform/observability/logger.js';
import { graphqlOperations, operationLabel } from '../platform/observability/metrics.js';
import { textProblem } from '../platform/validation/index.js';
import { projectRoot } from '../platform/project-root.js';
import { LIMITS, measure } from './complexity.js';
import { ForwardingDataSource, InProcessDataSource } from './data-sources.js';

function readSupergraph(): string {
  return readFileSync(join(projectRoot(), 'schema', 'supergraph.graphql'), 'utf8');
}

/** Where the gateway finds each subgraph: all in this process, or over HTTP but for the platform subgraph, which is always local. */
export type SubgraphTargets = { kind: 'local'; schemas: Partial<Record<GraphName, GraphQLSchema>> } | { kind: 'remote'; urls: Record<SubgraphName, string>; platform: GraphQLSchema };

/**
 * The gateway's schema is built from the supergraph's SDL, where a custom
 * scalar has no implementation and takes any value. Giving it the subgraphs'
 * own implementation means a malformed DateTime, Date or JSON variable is
 * refused at the gateway, as the client's input error it is, instead of
 * failing inside a subgraph.
 */
function implementScalars(schema: GraphQLSchema): void {
  for (const [name, implementation] of Object.entries(CUSTOM_SCALARS)) {
    const type = schema.getType(name);
    if (type instanceof GraphQLScalarType) {
      type.parseValue = implementation.parseValue;
      type.parseLiteral = implementation.parseLiteral;
      type.serialize = implementation.serialize;
    }
  }
}

export function createGateway(targets: SubgraphTargets, supergraphSdl = readSupergraph()): ApolloGateway {
  const gateway = new ApolloGateway({
    supergraphSdl,
    buildService: ({ name }) => {
      if (targets.kind === 'remote') return name === PLATFORM_GRAPH ? new InProcessDataSource(targets.platform) : new ForwardingDataSource({ url: targets.urls[name as SubgraphName] });
      const schema = targets.schemas[name as GraphName];
      if (!schema) throw new Error(`subgraph ${name} is not served by this process`);
      return new InProcessDataSource(schema);
    },
  });
  gateway.onSchemaLoadOrUpdate(({ apiSchema }) => implementScalars(apiSchema));
  return gateway;
}

/**
 * A validation rule graphql-js 16 lacks: an operation whose type the schema
 * has no root for (a `subscription` here) is invalid, so it is refused with
 * the other validation errors (HTTP 400) instead of reaching the query planner
 * or the executor, which fail on it.
 */
function knownOperationTypes(context: ValidationContext): ASTVisitor {
  return {
    OperationDefinition(node) {
      if (!context.getSchema().getRootType(node.operation)) {
        context.reportError(new GraphQLError(`The schema has no ${node.operation} operations.`, { nodes: node }));
      }
    },
  };
}

/**
 * What every GraphQL server of the service shares: no stack traces, the
 * formatter that masks what is not public, the operation-type rule, and no
 * automatic persisted queries (decisions.md: Apollo's cache is shared by
 * every caller, so a hit would tell one account what another sent). A
 * request carrying one is answered `PERSISTED_QUERY_NOT_SUPPORTED`, on which
 * Apollo's clients send the query itself.
 */
export const GRAPHQL_SERVER_DEFAULTS = {
  includeStacktraceInErrorResponses: false,
  formatError: formatGraphQLError,
  validationRules: [knownOperationTypes],
  persistedQueries: false as const,
  // The process runner owns signals and stops the server as part of its ordered shutdown.
  stopOnTerminationSignals: false,
};

/** A request error (HTTP 400, `BAD_USER_INPUT`): GraphQL's own message names what is wrong. */
function badUserInput(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });
}

/**
 * Checks what Apollo leaves to the executor, before anything executes: that
 * the document names one operation to run, that its string literals hold
 * text PostgreSQL can store (escapes such as \u0000 are decoded by the
 * parser, after the HTTP layer's check), and that the variables coerce to
 * their types (the gateway would otherwise answer these without an error code).
 */
function operationPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, operation, request, document }) {
          if (!operation) {
            throw badUserInput(request.operationName ? `Unknown operation named "${request.operationName}".` : 'Must provide operation name if query contains multiple operations.');
          }
          visit(document, {
            StringValue(node) {
              const problem = textProblem(node.value);
              if (problem) throw badUserInput(`A string argument at line ${node.loc?.startToken.line ?? '?'} ${problem}.`);
            },
          });
          const { errors } = getVariableValues(schema, operation.variableDefinitions ?? [], request.variables ?? {});
          if (errors?.length) throw badUserInput(errors.map((e) => e.message).join(' '));
        },
      };
    },
  };
}

/** Refuses operations deeper or costlier than the limits before anything executes. */
function complexityPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, operation, request }) {
          if (!operation) return;
          // Coerced values: a variable's default counts like a value sent (`$first: Int = 500`).
          const { coerced } = getVariableValues(schema, operation.variableDefinitions ?? [], request.variables ?? {});
          if (!coerced) return; // the operation check refuses the variables
          const { depth, cost } = measure(schema, document, operation, coerced);
          if (depth > LIMITS.maxDepth || cost > LIMITS.maxCost) {
            throw new GraphQLError(
              `Query too complex: depth ${depth} (max ${LIMITS.maxDepth}), cost ${cost} (max ${LIMITS.maxCost}).`,
              { extensions: { code: QUERY_TOO_COMPLEX, http: { status: 400 } } },
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

function isPublic(extensions: Record<string, unknown> | undefined): boolean {
  const code = extensions?.code;
  return typeof code === 'string' && PUBLIC_GRAPHQL_CODES.has(code);
}

/** Masks every error that is not meant for the client (errorLogPlugin logged it, with the request id). */
function formatGraphQLError(formatted: GraphQLFormattedError, error?: unknown): GraphQLFormattedError {
  if (isPublic(formatted.extensions)) {
    // Subgraph bookkeeping (serviceName) says nothing useful to a client.
    const { serviceName: _serviceName, ...extensions } = formatted.extensions ?? {};
    return { ...formatted, extensions };
  }
  if (isDatabaseUnavailable(error)) {
    // The database went away mid-operation: a retry is the answer, as REST's 503 says.
    const unavailable = databaseUnavailable();
    return {
      message: unavailable.message,
      path: formatted.path,
      extensions: { code: 'SERVICE_UNAVAILABLE', type: unavailable.type, problem: unavailable.slug, status: unavailable.status },
    };
  }
  return { message: INTERNAL_ERROR_MESSAGE, path: formatted.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
}

/** Logs each unexpected error once, on the request's logger (so with its request id), before it is masked. */
export function errorLogPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didEncounterErrors({ errors, contextValue }) {
          for (const error of errors) {
            if (isPublic(error.extensions)) continue;
            contextValue.logger.error({ err: error.originalError ?? error, path: error.path }, 'unexpected GraphQL error');
          }
        },
      };
    },
  };
}

export function createGraphQLServer(gateway: ApolloGateway, options: { introspection: boolean; logger: Logger }): ApolloServer<GraphQLContext> {
  return new ApolloServer<GraphQLContext>({
    gateway,
    ...GRAPHQL_SERVER_DEFAULTS,
    introspection: options.introspection,
    // Cache hints are not used (responses are not cached by HTTP caches), and the default plugin's
    // per-field hook makes Apollo define a per-request closure on every context, which costs.
    // Browsers get the GraphQL explorer served from npm packages (server/pages/developer-portal.ts), not Apollo's hosted one.
    plugins: [operationPlugin(), complexityPlugin(), errorLogPlugin(), metricsPlugin(), ApolloServerPluginCacheControlDisabled(), ApolloServerPluginLandingPageDisabled()],
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
