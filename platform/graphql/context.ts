import type { Credentials, Principal } from '../auth.js';
import type { Logger } from '../logger.js';

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
  /**
   * Set by the REST facade for its own fixed operations: the dashboard limits
   * (depth, cost) guard against arbitrary client queries, not against these.
   */
  trustedOperation?: boolean;
  /** Per-request memo (DataLoaders and the like), keyed by name. */
  memo: Map<string, unknown>;
}

export function memoize<T>(ctx: GraphQLContext, key: string, create: () => T): T {
  let value = ctx.memo.get(key) as T | undefined;
  if (value === undefined) {
    value = create();
    ctx.memo.set(key, value);
  }
  return value;
}
