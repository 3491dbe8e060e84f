import { execute, parse, validate, type DocumentNode, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { databaseUnavailable, isAppError, isDatabaseUnavailable } from '../errors.js';
import { currentTrace } from '../observability/tracing.js';
import { waitingOn } from '../observability/waits.js';
import { appErrorFromGraphQL } from './app-error.js';
import type { GraphQLContext } from './context.js';

/**
 * How a subgraph asks another subgraph a question it cannot answer from its own tables (the
 * returns subgraph needs a segment's members, which only the events subgraph can evaluate):
 * through the other subgraph's own GraphQL, as the gateway would, with the caller's context and
 * credentials, so that subgraph authorizes the caller itself. In a process that serves the other
 * graph (the `all` role) the operation runs on its schema in-process; otherwise (split mode) it is
 * posted to the subgraph's URL with the caller's credentials, request id and trace context, as the
 * gateway's data sources forward them. Never another subgraph's tables, never its code.
 */
export class PeerGraph {
  private readonly documents = new Map<string, DocumentNode>();

  constructor(
    private readonly name: string,
    /** The graph's schema when this process serves it (read when asked: the runtime fills it after the services are made). */
    private readonly schema: () => GraphQLSchema | undefined,
    private readonly url: string,
    private readonly timeoutMs: number,
  ) {}

  /** Runs `source` (a query) with `variables` for the caller of `ctx`; a domain error of the other subgraph is thrown as it was raised. */
  async query<T>(source: string, variables: Record<string, unknown>, ctx: GraphQLContext): Promise<T> {
    const schema = this.schema();
    const result = schema ? await this.inProcess<T>(schema, source, variables, ctx) : await waitingOn(`the ${this.name} subgraph at ${this.url}`, this.remote<T>(source, variables, ctx));
    const [error] = result.errors ?? [];
    if (error) {
      const original = (error as { originalError?: unknown }).originalError;
      if (isAppError(original)) throw original;
      if (isDatabaseUnavailable(original)) throw databaseUnavailable();
      throw appErrorFromGraphQL(error);
    }
    return result.data as T;
  }

  private async inProcess<T>(schema: GraphQLSchema, source: string, variables: Record<string, unknown>, ctx: GraphQLContext): Promise<{ data?: T; errors?: readonly GraphQLFormattedError[] }> {
    let document = this.documents.get(source);
    if (!document) {
      document = parse(source);
      const errors = validate(schema, document);
      if (errors.length) throw new Error(`peer query to ${this.name} does not validate: ${errors[0]!.message}`);
      this.documents.set(source, document);
    }
    return (await execute({ schema, document, variableValues: variables, contextValue: ctx })) as { data?: T; errors?: readonly GraphQLFormattedError[] };
  }

  private async remote<T>(source: string, variables: Record<string, unknown>, ctx: GraphQLContext): Promise<{ data?: T; errors?: readonly GraphQLFormattedError[] }> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-request-id': ctx.requestId, ...currentTrace() };
    if (ctx.credentials.bearer) headers.authorization = `Bearer ${ctx.credentials.bearer}`;
    if (ctx.credentials.compatKey) headers['x-authorization'] = ctx.credentials.compatKey;
    const res = await fetch(this.url, { method: 'POST', headers, body: JSON.stringify({ query: source, variables }), signal: this.timeoutMs ? AbortSignal.timeout(this.timeoutMs) : undefined });
    // A subgraph that cannot serve (its database away) answers 503: so does this one.
    if (res.status === 503) throw databaseUnavailable();
    return (await res.json()) as { data?: T; errors?: readonly GraphQLFormattedError[] };
  }
}
