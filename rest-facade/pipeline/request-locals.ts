import type { Response } from 'express';
import { AppError, databaseUnavailable, internalError, isDatabaseUnavailable } from '../../platform/errors.js';
import type { RequestScope } from '../../platform/graphql/context.js';
import type { Logger } from '../../platform/observability/logger.js';
import type { ApiSurface } from './surface.js';

/**
 * The request id and logger attached to every request. The child logger is
 * made on first use (most requests log one line at most, hot paths none),
 * through a getter on the class rather than one defined per request: V8
 * allocates a per-request accessor in the old generation, where it holds the
 * whole request graph through minor collections and turns it into
 * major-collection work (docs/performance.md, returns).
 */
export class RequestLocals implements RequestScope {
  #logger: Logger | undefined;
  /** The template of the API route that answered (`/v2.2/returns/:returnId`), for metrics by route. */
  route: string | undefined = undefined;
  /** Query parameters the route ignored (percent-encoded), for the request's log line. */
  ignoredParameters: string[] | undefined = undefined;
  /** The API whose router took the request (RouteTable#claim): answers that come from outside its pipeline (a 503 at the deadline) use its format. */
  surface: ApiSurface | undefined = undefined;

  constructor(
    readonly requestId: string,
    private readonly rootLogger: Logger,
  ) {}

  get logger(): Logger {
    return (this.#logger ??= this.rootLogger.child({ requestId: this.requestId }));
  }
}

export function locals(res: Response): RequestLocals {
  return res.locals.request as RequestLocals;
}

/**
 * Anything thrown becomes an AppError; what is not one is logged (once, with
 * the request id) and masked. An unexpected AppError was logged where it was
 * made (the gateway client logs what it masks) and is only masked.
 */
export function toAppError(err: unknown, logger: Logger): AppError {
  if (err instanceof AppError) return err.type === 'unexpected' ? internalError() : err;
  if (isDatabaseUnavailable(err)) {
    logger.warn({ err: (err as Error).message }, 'database unavailable during the request');
    return databaseUnavailable();
  }
  logger.error({ err }, 'unexpected error');
  return internalError();
}
