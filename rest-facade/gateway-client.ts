import type { ApolloGateway } from '@apollo/gateway';
import { Kind, parse, print, validate, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { createHash } from 'node:crypto';
import { apolloLogger } from '../gateway/gateway.js';
import type { Logger } from '../platform/observability/logger.js';
import { databaseUnavailable, isDatabaseUnavailable } from '../platform/errors.js';
import { appErrorFromGraphQL } from '../platform/graphql/app-error.js';
import type { GraphQLContext } from '../platform/graphql/context.js';
import { graphqlOperations } from '../platform/observability/metrics.js';

// Where subgraph errors become AppErrors again (shared with subgraphs that ask another one through its graph).
export { appErrorFromGraphQL };

/** An operation the facade runs: parsed and hashed once at module load, then sent as it is every time. */
export interface Operation {
  readonly source: string;
  readonly document: DocumentNode;
  readonly definition: OperationDefinitionNode;
  /** The key of the gateway's query-plan cache. */
  readonly queryHash: string;
}

/** Parses an operation at module load, so that syntax errors surface at start-up. */
export function operation(source: string): Operation {
  const document = parse(source);
  const definition = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (!definition || document.definitions.length !== 1) throw new Error('a facade operation is exactly one operation');
  const printed = print(document);
  return { source: printed, document, definition, queryHash: createHash('sha256').update(printed).digest('hex') };
}

export type GatewayRequestContext = Parameters<ApolloGateway['executor']>[0];

/**
 * The request context the facade hands the gateway's executor for one
 * operation: what Apollo Server would build, minus its per-request pipeline.
 * The executor reads `document` (to plan), `queryHash` (its plan cache key,
 * with `request.operationName`), `request.variables` (it checks them),
 * `context` (passed to the subgraphs), `request.http` and `logger`; the rest satisfies its
 * type. test/gateway-executor-contract.test.ts pins this, so a gateway
 * upgrade that reads anything else fails CI.
 */
export function executorRequest(op: Operation, variables: Record<string, unknown>, context: GraphQLContext, schema: GraphQLSchema, logger: GatewayRequestContext['logger']): GatewayRequestContext {
  return {
    // No HTTP request behind it: data sources get no incoming headers to forward.
    request: { query: op.source, variables, operationName: op.definition.name?.value, http: undefined },
    logger,
    schema,
    schemaHash: '' as GatewayRequestContext['schemaHash'],
    context,
    cache: NO_CACHE,
    queryHash: op.queryHash,
    document: op.document,
    source: op.source,
    operationName: op.definition.name?.value ?? null,
    operation: op.definition,
    metrics: {},
    overallCachePolicy: undefined,
  };
}

/**
 * How the facade talks to the graph: one operation per route, handed straight
 * to the gateway's executor (which plans once per operation and reaches the
 * subgraphs in-process or over HTTP). The facade's operations are its own,
 * fixed and validated once, so Apollo Server's per-request pipeline (parsing,
 * plugins, response formatting) has nothing to add to them; skipping it halves
 * the allocations of a read, and Apollo's request-context adapter defines
 * accessors per request, which keeps every request alive until a major
 * collection (measured with --trace-gc-nvp).
 */
export class GatewayClient {
  /** The schema each operation was last validated against. */
  private readonly validated = new WeakMap<Operation, GraphQLSchema>();
  private readonly apolloLogger: GatewayRequestContext['logger'];

  constructor(
    private readonly gateway: ApolloGateway,
    logger: Logger,
  ) {
    this.apolloLogger = apolloLogger(logger);
  }

  async execute<T>(op: Operation, variables: Record<string, unknown>, context: GraphQLContext): Promise<T> {
    const schema = this.gateway.schema;
    if (!schema) throw new Error('the gateway has not loaded its schema');
    this.validate(op, schema);
    const result = await this.gateway.executor(executorRequest(op, variables, context, schema, this.apolloLogger));
    const error = result.errors?.[0];
    // The facade's operations are a fixed set, so their names are bounded labels.
    graphqlOperations.inc({ source: 'rest', operation: op.definition.name?.value ?? '(anonymous)', type: op.definition.operation, outcome: error ? 'error' : 'success' });
    if (error) {
      // A database that went away mid-operation: 503 (retry), not a masked 500.
      const appError = isDatabaseUnavailable(error) ? databaseUnavailable() : appErrorFromGraphQL(error);
      // Apollo Server's error formatting logged what it masked; this path does it itself.
      if (appError.type === 'unexpected') context.logger.error({ err: error.originalError ?? error, path: error.path }, 'operation failed');
      throw appError;
    }
    return result.data as T;
  }

  private validate(op: Operation, schema: GraphQLSchema): void {
    if (this.validated.get(op) === schema) return;
    const errors = validate(schema, op.document);
    if (errors.length) throw new Error(`facade operation does not match the schema: ${errors[0]!.message}`);
    this.validated.set(op, schema);
  }
}

/** The gateway's executor takes a cache for data sources that want one; ours do not. */
const NO_CACHE: GatewayRequestContext['cache'] = {
  get: async () => undefined,
  set: async () => {},
  delete: async () => true,
};
