import type { Credentials, Principal } from '../api/auth.js';
import type { Logger } from '../observability/logger.js';

/**
 * The context every resolver sees. In one process the gateway hands its own
 * context to the subgraphs; in split mode each subgraph rebuilds it from the
 * forwarded credentials.
 */
export interface GraphQLContext {
  auth: Principal;
  /** The raw credentials, forwarded to subgraph processes in split mode. */
  credentials: Credentials;
  requestId: string;
  logger: Logger;
  /** Per-request memo (DataLoaders and the like), keyed by name. */
  memo: Map<string, unknown>;
}

/** What a request carries before any GraphQL runs: its id and its (lazily made) logger. */
export interface RequestScope {
  readonly requestId: string;
  readonly logger: Logger;
}

/**
 * The context of one request. Getters live on the class, not on each object:
 * an accessor defined per request is allocated in the old generation and keeps
 * the whole request reachable through minor collections.
 */
export class RequestContext implements GraphQLContext {
  readonly memo = new Map<string, unknown>();

  constructor(
    readonly auth: Principal,
    readonly credentials: Credentials,
    private readonly scope: RequestScope,
  ) {}

  get requestId(): string {
    return this.scope.requestId;
  }

  /** Made on first use: most requests never log. */
  get logger(): Logger {
    return this.scope.logger;
  }
}

export function memoize<T>(ctx: GraphQLContext, key: string, create: () => T): T {
  let value = ctx.memo.get(key) as T | undefined;
  if (value === undefined) {
    value = create();
    ctx.memo.set(key, value);
  }
  return value;
}
