import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../../platform/errors.js';
import { trackWaits, Waits } from '../../platform/observability/waits.js';
import { locals } from '../../rest-facade/pipeline/request-locals.js';
import { sendProblem } from '../../rest-facade/v2/surface.js';

/**
 * 503 with `Retry-After` in the format of the API the request is for: its surface answers
 * (RequestLocals#surface, set by the surface's router: problem details on /v2.2, Loop's envelope on
 * the compatibility API); a request no API took (/graphql, pages) gets problem details.
 */
export function answerUnavailable(req: Request, res: Response, detail: string): void {
  res.setHeader('Retry-After', '2');
  const surface = locals(res).surface;
  if (surface) return surface.sendUnavailable(req, res, detail);
  sendProblem(req, res, new AppError('unavailable', 'service-unavailable', detail));
}

/** The work of a request answered at its deadline may still finish: what it writes then goes nowhere. */
function discardLateAnswer(res: Response): void {
  const ignored = () => res;
  Object.assign(res, { setHeader: ignored, writeHead: ignored, write: () => true, end: ignored });
}

/**
 * No request without an answer: one still running `ms` after it came in gets 503 with `Retry-After`,
 * and the log line says what it was waiting on (a pool's connection, a statement, a subgraph; see
 * platform/observability/waits.ts). Its work goes on, bounded by the database timeouts; an Idempotency-Key makes
 * the retry safe either way. 0: no deadline.
 */
export function requestDeadline(ms: number) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const waits = new Waits();
    if (ms > 0) {
      const timer = setTimeout(() => {
        if (res.headersSent) return;
        const path = req.originalUrl.split('?')[0];
        locals(res).logger.warn({ method: req.method, path, deadlineMs: ms, waitingOn: waits.describe() }, 'request deadline passed: answered 503');
        answerUnavailable(req, res, `The request did not finish within ${ms / 1000} s and may still complete. Retry shortly (with the same Idempotency-Key).`);
        discardLateAnswer(res);
      }, ms);
      res.on('close', () => clearTimeout(timer));
    }
    trackWaits(waits, next);
  };
}
