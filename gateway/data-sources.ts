import { RemoteGraphQLDataSource, type GraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { execute, GraphQLError, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import { databaseUnavailable } from '../platform/errors.js';
import type { GraphQLContext } from '../platform/graphql/context.js';
import { currentTrace } from '../platform/observability/tracing.js';
import { waitingOn } from '../platform/observability/waits.js';

const MAX_CACHED_DOCUMENTS = 1000;

/**
 * Runs a subgraph in this process. Unlike Apollo's LocalGraphQLDataSource it
 * parses and validates each distinct subgraph query once: the query planner
 * sends the same few query strings over and over.
 */
export class InProcessDataSource implements GraphQLDataSource<GraphQLContext> {
  private readonly documents = new Map<string, DocumentNode>();

  constructor(private readonly schema: GraphQLSchema) {}

  async process({ request, context }: GraphQLDataSourceProcessOptions<GraphQLContext>) {
    const source = request.query!;
    let document = this.documents.get(source);
    if (!document) {
      document = parse(source);
      const errors = validate(this.schema, document);
      if (errors.length) return { errors };
      if (this.documents.size >= MAX_CACHED_DOCUMENTS) this.documents.clear();
      this.documents.set(source, document);
    }
    return execute({
      schema: this.schema,
      document,
      variableValues: request.variables,
      operationName: request.operationName,
      contextValue: context,
    }) as never;
  }
}

/** Calls a subgraph process over HTTP, forwarding the caller's credentials, request id and trace context (`traceparent`). */
export class ForwardingDataSource extends RemoteGraphQLDataSource<GraphQLContext> {
  override willSendRequest({ request, context }: GraphQLDataSourceProcessOptions<GraphQLContext>) {
    const headers = request.http?.headers;
    // The subgraph's spans join the gateway's fetch span (the HTTP instrumentation, when on, puts its own client span there).
    for (const [name, value] of Object.entries(currentTrace() ?? {})) headers?.set(name, value);
    const credentials = (context as Partial<GraphQLContext>).credentials;
    if (!headers || !credentials || !('requestId' in context)) return;
    if (credentials.bearer) headers.set('authorization', `Bearer ${credentials.bearer}`);
    if (credentials.compatKey) headers.set('x-authorization', credentials.compatKey);
    headers.set('x-request-id', String(context.requestId));
  }

  override process(options: GraphQLDataSourceProcessOptions<GraphQLContext>) {
    return waitingOn(`the subgraph at ${this.url}`, super.process(options));
  }

  /** A subgraph that cannot serve (its database away, its deadline passed) answers 503: so does the gateway, not a masked 500. */
  override async errorFromResponse(response: Parameters<RemoteGraphQLDataSource['errorFromResponse']>[0]): Promise<GraphQLError> {
    if (response.status !== 503) return super.errorFromResponse(response);
    const unavailable = databaseUnavailable();
    return new GraphQLError(unavailable.message, { extensions: unavailable.extensions });
  }
}
