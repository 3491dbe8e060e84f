import type { NextFunction, Request, Response } from 'express';
import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import { credentialsFrom } from '../../platform/api/auth.js';
import { AppError, invalid } from '../../platform/errors.js';
import { PAGE_SIZE } from '../../platform/api/pagination.js';
import { problemTitle } from '../../platform/problems.js';
import { rateLimited, type MemoryRateLimiter } from '../../platform/api/rate-limit.js';
import { Int, Strict, Type, type Static } from '../../platform/validation/index.js';
import { locals } from '../pipeline/request-locals.js';
import type { HeaderSpec } from '../pipeline/route.js';
import type { ApiSurface, PageParams, PaginationStyle } from '../pipeline/surface.js';

/** Names the query parameters a request sent that the route ignored (decisions section 17). */
export const IGNORED_PARAMETERS = 'Ignored-Parameters';
const EXPOSED_HEADERS = `X-Page-Next, X-Request-Id, Retry-After, RateLimit, RateLimit-Policy, ${IGNORED_PARAMETERS}`;
const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, X-Page-Size, X-Page-Continue, X-Request-Id';

function unauthorized(detail: string, header: string): AppError {
  return new AppError('unauthorized', 'unauthorized', detail, { headers: { 'WWW-Authenticate': header } });
}

/** The IETF RateLimit fields of a rate-limited answer, as the API reference shows them. */
export const RATE_LIMIT_HEADERS: Record<string, HeaderSpec> = {
  'RateLimit-Policy': { description: 'The limit that applies (IETF RateLimit fields): `"<policy>";q=<requests>;w=<seconds>`.' },
  RateLimit: { description: 'What is left of it: `"<policy>";r=<remaining>;t=<seconds until reset>`.' },
};

/** The error body of every /v2.2 answer (RFC 9457), as the API reference publishes it. */
export const ProblemSchema = Strict(
  {
    type: Type.String({ pattern: '^/problems/[a-z-]+$', description: 'The problem type: `/problems/<slug>`, a page (relative to the service) that explains it.' }),
    title: Type.String({ description: 'Summary of the problem type.' }),
    status: Int({ min: 400, max: 599 }),
    detail: Type.String({ description: 'What went wrong with this request.' }),
    instance: Type.String({ description: 'The request path, `#`, and the request id (also in `X-Request-Id`).' }),
    errors: Type.Optional(
      Type.Array(
        Strict({
          pointer: Type.String({ description: 'A JSON pointer into the body (`/data/items/0/quantity`), or `query#name`, `header#name`, `path#name`.' }),
          detail: Type.String(),
        }),
        { description: 'Every violation of a validation problem.' },
      ),
    ),
  },
  { title: 'Problem' },
);

/** RFC 9457 problem details; `instance` is the path plus `#` and the request id (decisions section 14). */
export function sendProblem(req: Request, res: Response, error: AppError): void {
  for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
  const problem: Static<typeof ProblemSchema> = {
    type: `/problems/${error.slug}`,
    title: problemTitle(error.slug),
    status: error.status,
    detail: error.message,
    instance: `${req.originalUrl.split('?')[0]}#${locals(res).requestId}`,
    ...(error.errors ? { errors: error.errors } : {}),
  };
  res.status(error.status).type('application/problem+json').send(JSON.stringify(problem));
}

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** `page-size` / `X-Page-Size` (query wins, 1..500, default 20) and `page-continue` / `X-Page-Continue`; the next cursor in `X-Page-Next`. */
export const headerPagination: PaginationStyle = {
  params: ['page-size', 'page-continue'],
  read(req: Request, query: Record<string, string>): PageParams {
    const rawSize = query['page-size'] ?? header(req, 'x-page-size');
    let first: number = PAGE_SIZE.default;
    if (rawSize !== undefined) {
      const pointer = query['page-size'] !== undefined ? 'query#page-size' : 'header#x-page-size';
      if (!/^\d+$/.test(rawSize.trim()) || Number(rawSize) < PAGE_SIZE.min || Number(rawSize) > PAGE_SIZE.max) {
        throw invalid('invalid-page-size', `The page size must be an integer from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}.`, [
          { pointer, detail: `must be an integer from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}` },
        ]);
      }
      first = Number(rawSize);
    }
    const after = query['page-continue'] ?? header(req, 'x-page-continue');
    return { first, after: after || undefined };
  },
  present(_req, res, page, body) {
    if (page.hasNextPage && page.endCursor) res.setHeader('X-Page-Next', page.endCursor);
    return body;
  },
};

/** The REST API v2.2: bearer API secrets with a generous per-secret limit, problem details, header pagination. */
export function v2Surface(accounts: AccountsService, adminToken: string, secretLimiter: MemoryRateLimiter): ApiSurface {
  return {
    name: 'v2.2',
    async authenticate(req) {
      const credentials = credentialsFrom(req.headers);
      delete credentials.compatKey;
      if (!credentials.bearer) throw unauthorized('Send an API secret as "Authorization: Bearer <secret>".', 'Bearer realm="v2.2"');
      const principal = await accounts.authenticate(credentials, adminToken);
      if (!principal) throw unauthorized('The API secret is unknown or revoked.', 'Bearer realm="v2.2", error="invalid_token"');
      if (principal.kind === 'account') {
        const decision = secretLimiter.consume(principal.secretId);
        if (!decision.allowed) throw rateLimited('per-secret', decision, secretLimiter.windowMs / 1000);
      }
      return { principal, credentials };
    },
    sendError: sendProblem,
    sendUnavailable: (req, res, detail) => sendProblem(req, res, new AppError('unavailable', 'service-unavailable', detail)),
    pagination: headerPagination,
    ignoredParametersHeader: IGNORED_PARAMETERS,
  };
}

/** CORS for browsers: bearer auth and no cookies, so any origin may call (decisions section 14). */
export function v2Cors(allowed: (path: string) => string[]) {
  return (req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    if (req.method !== 'OPTIONS') return next();
    const methods = allowed(req.path);
    if (!methods.length) return next();
    res.setHeader('Access-Control-Allow-Methods', [...methods, 'OPTIONS'].join(', '));
    res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    res.setHeader('Access-Control-Max-Age', '600');
    res.status(204).end();
  };
}
