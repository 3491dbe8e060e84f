import type { Request, Response } from 'express';
import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import { AppError, type FieldError } from '../../platform/errors.js';
import type { SharedRateLimiter } from '../../platform/api/rate-limit.js';
import type { ApiSurface, PageParams, PaginationStyle } from '../pipeline/surface.js';
import { decodeLinkCursor, encodeLinkCursor, type LinkDirection } from './cursor.js';
import { laravelInvalid, PAGE_SIZE } from './params.js';

/** Loop's answer to a missing, unknown or revoked key (decisions section 2), byte for byte. */
const UNAUTHORIZED_BODY = { error: { code: '401', http_code: 'GEN-UNAUTHORIZED', message: 'Unauthorized.' } };
const TOO_MANY_REQUESTS_BODY = { message: 'Too Many Requests' };
/** Loop's answer to a key without the scope a path needs (decisions section 17). */
const FORBIDDEN_BODY = { error: { code: '403', http_code: 'GEN-FORBIDDEN', message: 'Forbidden.' } };

/**
 * Laravel's validation answer: `message` is the first message (with how many
 * more there are), `errors` lists every message per field.
 */
function laravelValidationBody(errors: readonly FieldError[]): { message: string; errors: Record<string, string[]> } {
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
 * Loop's error envelopes (a Laravel application): 401, 403 and 429 exactly
 * as Loop answers them, 422 in Laravel's validation shape, wrong methods as
 * Laravel's JSON exception (`{"message"}`), anything else `{"message"}` with
 * the status (500 says only "Server Error").
 */
function sendLoopError(req: Request, res: Response, error: AppError): void {
  for (const [name, value] of Object.entries(error.headers ?? {})) res.setHeader(name, value);
  const send = (status: number, body: unknown) => res.status(status).json(body);
  switch (error.type) {
    case 'unauthorized':
      return void send(401, UNAUTHORIZED_BODY);
    case 'rate_limited':
      return void send(429, TOO_MANY_REQUESTS_BODY);
    case 'unexpected':
      return void send(500, { message: 'Server Error' });
    case 'not_allowed':
      return void send(403, FORBIDDEN_BODY);
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

const PHP_TRUE = ['1', 'true', 'on', 'yes'];
const PHP_FALSE = ['0', 'false', 'off', 'no', ''];

/** A boolean as PHP's boolean filter reads it (`True`, `on`, `yes`, ...: Python's requests sends `True`); anything else is 422. */
function phpBoolean(value: string | undefined, field: string): boolean | undefined {
  if (value === undefined) return undefined;
  const word = value.trim().toLowerCase();
  if (PHP_TRUE.includes(word)) return true;
  if (PHP_FALSE.includes(word)) return false;
  throw laravelInvalid(field, `The ${field} field must be true or false.`);
}

/** Whether a list request asked for Loop's paginated envelope: `paginate`, else whether it carries a cursor. */
export function isPaginated(req: Request): boolean {
  const { paginate, cursor } = req.query;
  return phpBoolean(typeof paginate === 'string' ? paginate : undefined, 'paginate') ?? (typeof cursor === 'string' && cursor !== '');
}

/**
 * Loop's cursor pagination (decisions sections 11 and 17): `paginate=true`
 * wraps a list in `{returns, nextPageUrl, previousPageUrl}`, absolute URLs
 * that carry every parameter of the list plus `cursor`; without it the list
 * is a bare array. `pageSize` 1..750 (default 100), else 422. The cursor is a
 * position that also carries the window its first page resolved.
 */
const loopPagination: PaginationStyle = {
  params: ['paginate', 'pageSize', 'cursor'],
  read(_req: Request, query: Record<string, string>): PageParams {
    phpBoolean(query.paginate, 'paginate');
    let first: number = PAGE_SIZE.default;
    const size = query.pageSize;
    if (size !== undefined) {
      if (!/^\d+$/.test(size)) throw laravelInvalid('pageSize', 'The page size field must be an integer.');
      first = Number(size);
      if (first > PAGE_SIZE.max) throw laravelInvalid('pageSize', `The page size field must not be greater than ${PAGE_SIZE.max}.`);
      if (first < PAGE_SIZE.min) throw laravelInvalid('pageSize', `The page size field must be at least ${PAGE_SIZE.min}.`);
    }
    if (!query.cursor) return { first, after: undefined };
    const cursor = decodeLinkCursor(query.cursor);
    return { first, after: cursor.direction === 'next' ? cursor.position : undefined, before: cursor.direction === 'previous' ? cursor.position : undefined, window: cursor.window };
  },
  present(req, _res, page, body) {
    if (!isPaginated(req)) return body;
    const parameters = page.parameters ?? {};
    const window = { from: parameters.from, to: parameters.to };
    const link = (direction: LinkDirection, position: string) => {
      const params = new URLSearchParams({ ...parameters, cursor: encodeLinkCursor({ direction, window, position }) });
      return `${req.protocol}://${req.get('host')}${req.baseUrl}${req.path}?${params.toString()}`;
    };
    return {
      returns: body,
      nextPageUrl: page.hasNextPage && page.endCursor ? link('next', page.endCursor) : null,
      previousPageUrl: page.hasPreviousPage && page.startCursor ? link('previous', page.startCursor) : null,
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
    // What Laravel answers in maintenance mode, and so what Loop's clients know a 503 by.
    sendUnavailable: (_req, res) => void res.status(503).json({ message: 'Service Unavailable' }),
    pagination: loopPagination,
    // Loop authenticates before it routes (decisions section 17): a path it does not serve is 401 without a
    // valid key and 403 with one (the key has no scope there), so clients that check a key on such a path connect.
    async unrouted(req, knownPath) {
      await this.authenticate(req);
      return knownPath ? undefined : new AppError('not_allowed', 'scope-forbidden', 'Forbidden.');
    },
  };
}
