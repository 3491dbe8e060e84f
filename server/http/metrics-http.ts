import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { safeEqual } from '../../platform/accounts/credentials.js';
import { httpRequestDuration, metrics } from '../../platform/observability/metrics.js';
import type { RequestLocals } from '../../rest-facade/pipeline/request-locals.js';

/** What `routeLabel` answers for a request that matched no route. */
export const UNMATCHED_ROUTE = '(unmatched)';

/**
 * The route a request is counted under: the API route's template (set by its
 * RouteTable), the template of another Express route, `/graphql`, or
 * `(unmatched)` for everything that found no route (so a scan of random URLs
 * adds no series).
 */
export function routeLabel(req: Request, res: Response): string {
  const template = (res.locals.request as RequestLocals | undefined)?.route;
  if (template) return template;
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path === 'string') return `${req.baseUrl}${path}`;
  if (req.originalUrl === '/graphql' || req.originalUrl.startsWith('/graphql?') || req.originalUrl.startsWith('/graphql/')) return '/graphql';
  return UNMATCHED_ROUTE;
}

/** Times every request and counts it by method, route template and status once its answer is sent. */
export function httpMetrics(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      httpRequestDuration.observe({ method: req.method, route: routeLabel(req, res), status: String(res.statusCode) }, seconds);
    });
    next();
  };
}

/**
 * `GET /metrics`: the Prometheus exposition, for the admin token or the
 * `METRICS_TOKEN` (a scraper's credentials should not be the admin's).
 */
export function metricsEndpoint(options: { adminToken: string; metricsToken: string | undefined }): RequestHandler {
  const tokens = [options.adminToken, options.metricsToken].filter((t): t is string => Boolean(t));
  return async (req: Request, res: Response) => {
    const header = req.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7).trim() : '';
    if (!token || !tokens.some((t) => safeEqual(t, token))) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="metrics"');
      res.status(401).type('text/plain').send('Send the admin token or METRICS_TOKEN as "Authorization: Bearer <token>".\n');
      return;
    }
    const { contentType, text } = await metrics.scrape();
    res.setHeader('Cache-Control', 'no-store');
    res.type(contentType).send(text);
  };
}
