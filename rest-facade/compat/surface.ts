import type { Request, Response } from 'express';
import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import { AppError, type FieldError } from '../../platform/errors.js';
import type { SharedRateLimiter } from '../../platform/rate-limit.js';
import type { PageParams } from '../pipeline/route.js';
import type { ApiSurface, PaginationStyle } from '../pipeline/surface.js';
import { decodeLinkCursor, encodeLinkCursor } from './cursor.js';
import { laravelInvalid, PAGE_SIZE } from './params.js';

/** Loop's answer to a missing, unknown or revoked key (decisions section 2), byte for byte. */
export const UNAUTHORIZED_BODY = { error: { code: '401', http_code: 'GEN-UNAUTHORIZED', message: 'Unauthorized.' } };
export const TOO_MANY_REQUESTS_BODY = { message: 'Too Many Requests' };

/**
 * Laravel's validation answer: `message` is the first message (with how many
 * more there are), `errors` lists every message per field.
 */
export function laravelValidationBody(errors: readonly FieldError[]): { message: string; errors: Record<string, string[]> } {
  // Keyed by names from the request (`constructor`, `toString`): no prototype to collide with.
  const byField = Object.create(null) as Record<string, string[]>;
  for (const e of errors) {
    // `query#from`, `path#return_id`, `/content`: the field is the last name.
    const field = e.pointer.replace(/^(query|path|header)#/, '').split('/').filter(Boolean).pop() ?? 'request';
    (byField[field] ??= []).push(e.detail);
  }
  const first = errors[0]?.detail ?? 'The given data was invalid.';
  const more = errors.length - 1;
  return { message: more > 0 ? `${first} (and ${more} more error${more > 1 ? 's' : ''})` : first, errors: byField };
}

/** A path as Laravel names it in messages: without the leading slash. */
function routePath(req: Request): string {
  return req.originalUrl.split('?')[0]!.replace(/^\/+/, '');
}

/**
 * Loop's error envelopes (a Laravel application): 401 and 429 exactly as
 * Loop answers them, 422 in Laravel's validation shape, unknown routes and
 * wrong methods as Laravel's JSON exceptions (`{"message"}`), anything else
 * `{"message"}` with the status (500 says only "Server Error").
 */
export function sendLoopError(req: Request, res: Response, error: AppError): void {
  for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
  const send = (status: number, body: unknown) => res.status(status).json(body);
  switch (error.type) {
    case 'unauthorized':
      return void send(401, UNAUTHORIZED_BODY);
    case 'rate_limited':
      return void send(429, TOO_MANY_REQUESTS_BODY);
    case 'unexpected':
      return void send(500, { message: 'Server Error' });
    case 'not_found':
      if (error.slug === 'route-not-found') return void send(404, { message: `The route ${routePath(req)} could not be found.` });
      return void send(404, { message: error.message });
    case 'method_not_allowed': {
      const allowed = (error.headers?.Allow ?? '').split(', ').filter((m) => m && m !== 'OPTIONS');
      return void send(405, { message: `The ${req.method} method is not supported for route ${routePath(req)}. Supported methods: ${allowed.join(', ')}.` });
    }
    case 'invalid_data':
    case 'unprocessable':
      if (error.errors?.length) return void send(422, laravelValidationBody(error.errors));
      return void send(error.status, { message: error.message });
    default:
      return void send(error.status, { message: error.message });
  }
}

function truthy(value: string | undefined, field: string): boolean {
  if (value === undefined || value === 'false' || value === '0' || value === '') return false;
  if (value === 'true' || value === '1') return true;
  throw laravelInvalid(field, `The ${field} field must be true or false.`);
}

/** Whether a list request asked for Loop's paginated envelope. */
export function isPaginated(req: Request): boolean {
  return truthy(typeof req.query.paginate === 'string' ? req.query.paginate : undefined, 'paginate');
}

/**
 * Loop's cursor pagination (decisions section 11): `paginate=true` wraps a
 * list in `{returns, nextPageUrl, previousPageUrl}`, absolute URLs that carry
 * every parameter of the list plus `cursor`; without it the list is a bare
 * array. `pageSize` 1..750 (default 100), else 422.
 */
export const loopPagination: PaginationStyle = {
  params: ['paginate', 'pageSize', 'cursor'],
  read(_req: Request, query: Record<string, string>): PageParams {
    truthy(query.paginate, 'paginate');
    let first: number = PAGE_SIZE.default;
    const size = query.pageSize;
    if (size !== undefined) {
      if (!/^\d+$/.test(size)) throw laravelInvalid('pageSize', 'The page size field must be an integer.');
      first = Number(size);
      if (first > PAGE_SIZE.max) throw laravelInvalid('pageSize', `The page size field must not be greater than ${PAGE_SIZE.max}.`);
      if (first < PAGE_SIZE.min) throw laravelInvalid('pageSize', `The page size field must be at least ${PAGE_SIZE.min}.`);
    }
    const cursor = query.cursor ? decodeLinkCursor(query.cursor) : undefined;
    return { first, after: cursor?.direction === 'next' ? cursor.cursor : undefined, before: cursor?.direction === 'previous' ? cursor.cursor : undefined };
  },
  present(req, _res, page, body) {
    if (!isPaginated(req)) return body;
    const link = (cursor: string) => {
      const params = new URLSearchParams({ ...page.parameters, cursor });
      return `${req.protocol}://${req.get('host')}${req.baseUrl}${req.path}?${params.toString()}`;
    };
    return {
      returns: body,
      nextPageUrl: page.hasNextPage && page.endCursor ? link(encodeLinkCursor('next', page.endCursor)) : null,
      previousPageUrl: page.hasPreviousPage && page.startCursor ? link(encodeLinkCursor('previous', page.startCursor)) : null,
    };
  },
};

/**
 * The Loop-compatible warehouse API: `X-Authorization: <key>` (a key of one
 * store), 300 requests a minute per key counted in PostgreSQL (so the limit
 * holds across processes), Loop's envelopes, Loop's pagination, and
 * parameters it does not know ignored, as Loop (Laravel) ignores them.
 */
export function compatSurface(accounts: AccountsService, adminToken: string, limiter: SharedRateLimiter): ApiSurface {
  return {
    name: 'compat',
    unknownQueryParameters: 'ignore',
    async authenticate(req) {
      const header = req.headers['x-authorization'];
      const compatKey = typeof header === 'string' ? header.trim() : '';
      if (!compatKey) throw new AppError('unauthorized', 'unauthorized', 'Unauthorized.');
      const principal = await accounts.authenticate({ compatKey }, adminToken);
      if (!principal || principal.kind !== 'compat') throw new AppError('unauthorized', 'unauthorized', 'Unauthorized.');
      const decision = await limiter.consume(`compat:${principal.keyId}`);
      // Laravel's throttle headers, on every answer.
      const headers: Record<string, string> = { 'X-RateLimit-Limit': String(decision.limit), 'X-RateLimit-Remaining': String(decision.remaining) };
      if (!decision.allowed) throw new AppError('rate_limited', 'rate-limited', 'Too Many Requests', { headers: { ...headers, 'Retry-After': String(decision.resetSeconds) } });
      for (const [name, value] of Object.entries(headers)) req.res?.setHeader(name, value);
      return { principal, credentials: { compatKey } };
    },
    sendError: sendLoopError,
    pagination: loopPagination,
  };
}
