import type { ApolloServer } from '@apollo/server';
import { parse, print, type GraphQLFormattedError } from 'graphql';
import { AppError, HTTP_STATUS, INTERNAL_ERROR_MESSAGE, type ErrorType, type FieldError } from '../platform/errors.js';
import type { GraphQLContext } from '../platform/graphql/context.js';

const TYPE_BY_STATUS = new Map(Object.entries(HTTP_STATUS).map(([type, status]) => [status, type as ErrorType]));

/** Turns the GraphQL error a subgraph raised back into the AppError it started as. */
export function appErrorFromGraphQL(error: GraphQLFormattedError): AppError {
  const ext = error.extensions ?? {};
  const status = typeof ext.status === 'number' ? ext.status : undefined;
  const type = status ? TYPE_BY_STATUS.get(status) : undefined;
  if (type && typeof ext.problem === 'string') {
    return new AppError(type, ext.problem, error.message, {
      errors: ext.errors as FieldError[] | undefined,
      headers: ext.headers as Record<string, string> | undefined,
    });
  }
  if (ext.code === 'BAD_USER_INPUT' || ext.code === 'GRAPHQL_VALIDATION_FAILED') {
    return new AppError('invalid_data', 'validation-failed', error.message);
  }
  return new AppError('unexpected', 'internal-error', INTERNAL_ERROR_MESSAGE);
}

/** An operation the facade runs: checked once at module load, then sent as the same text every time. */
export interface Operation {
  readonly source: string;
}

/**
 * Parses and prints an operation at module load: syntax errors surface at
 * start-up, and the gateway's document cache (keyed by the text) parses and
 * validates each route's operation only once.
 */
export function operation(source: string): Operation {
  return { source: print(parse(source)) };
}

/**
 * How the facade talks to the graph: one operation per route, executed by the
 * gateway in this process (which reaches the subgraphs in-process or over HTTP).
 */
export class GatewayClient {
  constructor(private readonly server: ApolloServer<GraphQLContext>) {}

  async execute<T>(op: Operation, variables: Record<string, unknown>, context: GraphQLContext): Promise<T> {
    const response = await this.server.executeOperation({ query: op.source, variables }, { contextValue: context });
    if (response.body.kind !== 'single') throw new Error('incremental delivery is not used by the facade');
    const { data, errors } = response.body.singleResult;
    if (errors?.length) throw appErrorFromGraphQL(errors[0]!);
    return data as T;
  }
}
