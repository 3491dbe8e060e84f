import type { Request, Response } from 'express';
import { AppError, INTERNAL_ERROR_MESSAGE, problemTitle } from '../platform/errors.js';
import type { RequestScope } from '../platform/graphql/context.js';
import type { Logger } from '../platform/logger.js';

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

/** Anything thrown becomes an AppError; what is not one already is logged and masked. */
export function toAppError(err: unknown, logger: Logger): AppError {
  if (err instanceof AppError) {
    if (err.type === 'unexpected') return new AppError('unexpected', 'internal-error', INTERNAL_ERROR_MESSAGE);
    return err;
  }
  logger.error({ err }, 'unhandled error');
  return new AppError('unexpected', 'internal-error', INTERNAL_ERROR_MESSAGE);
}

/** RFC 9457 problem details; `instance` is the path plus `#` and the request id. */
export function sendProblem(req: Request, res: Response, error: AppError): void {
  const { requestId } = locals(res);
  for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
  res
    .status(error.status)
    .type('application/problem+json')
    .send(
      JSON.stringify({
        type: `/problems/${error.slug}`,
        title: problemTitle(error.slug),
        status: error.status,
        detail: error.message,
        instance: `${req.originalUrl.split('?')[0]}#${requestId}`,
        ...(error.errors ? { errors: error.errors } : {}),
      }),
    );
}
