import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import type { Scope } from '../../platform/accounts/credentials.js';
import { credentialsFrom, hasScope, scopeForbidden, storeNotFound, type Credentials, type Principal } from '../../platform/auth.js';
import { AppError, invalid } from '../../platform/errors.js';
import { storeVisible } from '../../platform/graphql/authorize.js';
import { RequestContext } from '../../platform/graphql/context.js';
import { PAGE_SIZE } from '../../platform/pagination.js';
import { rateLimited, type MemoryRateLimiter } from '../../platform/rate-limit.js';
import type { GatewayClient, Operation } from '../gateway-client.js';
import { locals, sendProblem, toAppError } from '../problem.js';

export interface V2Deps {
  accounts: AccountsService;
  gateway: GatewayClient;
  adminToken: string;
  /** The generous per-secret limit of every route (per process). */
  secretLimiter: MemoryRateLimiter;
}

export interface PageParams {
  first: number;
  after: string | undefined;
}

export interface V2Context {
  req: Request;
  principal: Principal;
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
  page: PageParams;
  /** Runs one GraphQL operation as the caller. */
  graphql<T>(op: Operation, variables: Record<string, unknown>): Promise<T>;
}

export interface V2Result {
  status: number;
  body?: unknown;
  /** A body already serialised (documents a subgraph built as JSON text). */
  json?: string;
  headers?: Record<string, string>;
}

export interface V2RouteOptions {
  scope: Scope;
  /** Query parameters the route accepts; anything else is 400 `unknown-parameter`. */
  query?: readonly string[];
  paginated?: boolean;
  /** A JSON body is expected, at most this many bytes. */
  body?: { limit: number };
  handle(ctx: V2Context): Promise<V2Result>;
}

const PAGINATION_PARAMS = ['page-size', 'page-continue'];

function unauthorized(detail: string, header: string): AppError {
  return new AppError('unauthorized', 'unauthorized', detail, { headers: { 'WWW-Authenticate': header } });
}

async function authenticate(deps: V2Deps, credentials: Credentials): Promise<Principal> {
  if (!credentials.bearer) throw unauthorized('Send an API secret as "Authorization: Bearer <secret>".', 'Bearer realm="v2.2"');
  const principal = await deps.accounts.authenticate({ bearer: credentials.bearer }, deps.adminToken);
  if (!principal) throw unauthorized('The API secret is unknown or revoked.', 'Bearer realm="v2.2", error="invalid_token"');
  return principal;
}

function readQuery(req: Request, allowed: readonly string[]): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.query)) {
    if (!allowed.includes(name)) {
      throw invalid('unknown-parameter', `Unknown query parameter "${name}".`, [{ pointer: `query#${name}`, detail: `accepted: ${allowed.join(', ') || 'none'}` }]);
    }
    if (typeof value !== 'string') {
      throw invalid('validation-failed', `Query parameter "${name}" must be given once.`, [{ pointer: `query#${name}`, detail: 'must be a single value' }]);
    }
    query[name] = value;
  }
  return query;
}

function readPage(req: Request, query: Record<string, string>): PageParams {
  const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : undefined);
  const rawSize = query['page-size'] ?? header('x-page-size');
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
  const after = query['page-continue'] ?? header('x-page-continue');
  return { first, after: after || undefined };
}

/** One parser per body limit, built once (routes share a handful of limits). */
const jsonParsers = new Map<number, RequestHandler>();
function jsonParser(limit: number): RequestHandler {
  let parser = jsonParsers.get(limit);
  if (!parser) jsonParsers.set(limit, (parser = express.json({ limit, strict: false, type: () => true })));
  return parser;
}

function parseBody(req: Request, res: Response, limit: number): Promise<unknown> {
  const contentType = req.headers['content-type'] ?? '';
  if (!/^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(contentType)) {
    throw new AppError('unsupported_media_type', 'unsupported-media-type', 'Send the body as application/json.');
  }
  return new Promise((resolve, reject) => {
    jsonParser(limit)(req, res, (err?: unknown) => {
      if (!err) return resolve(req.body);
      const e = err as { type?: string; status?: number };
      if (e.type === 'entity.too.large') return reject(new AppError('payload_too_large', 'payload-too-large', `The body is larger than ${limit} bytes.`));
      if (e.type === 'entity.parse.failed') return reject(new AppError('invalid_data', 'invalid-json', 'The body is not valid JSON.'));
      reject(new AppError('invalid_data', 'invalid-json', 'The body could not be read.'));
    });
  });
}

/**
 * The pipeline every /v2.2 route runs, in the contract's order: credentials
 * (401), store (404), scope (403), query parameters, content type (415), body
 * size (413), JSON (400), then the route's own validation and operation.
 */
export function v2Route(deps: V2Deps, options: V2RouteOptions): RequestHandler {
  return async (req: Request, res: Response, _next: NextFunction) => {
    try {
      const credentials = credentialsFrom(req.headers);
      const principal = await authenticate(deps, credentials);
      if (principal.kind === 'account') {
        const decision = deps.secretLimiter.consume(principal.secretId);
        if (!decision.allowed) throw rateLimited('per-secret', decision, deps.secretLimiter.windowMs / 1000);
      }
      const context = new RequestContext(principal, credentials, locals(res));
      const storeId = typeof req.params.storeId === 'string' ? req.params.storeId : undefined;
      if (storeId !== undefined && !(await storeVisible(context, deps.accounts, storeId))) throw storeNotFound(storeId);
      if (!hasScope(principal, options.scope)) throw scopeForbidden(options.scope);
      const query = readQuery(req, [...(options.query ?? []), ...(options.paginated ? PAGINATION_PARAMS : [])]);
      const page = options.paginated ? readPage(req, query) : { first: PAGE_SIZE.default, after: undefined };
      const body = options.body ? await parseBody(req, res, options.body.limit) : undefined;
      const result = await options.handle({
        req,
        principal,
        params: req.params as Record<string, string>,
        query,
        body,
        page,
        graphql: (op, variables) => deps.gateway.execute(op, variables, context),
      });
      for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
      if (result.json !== undefined) res.status(result.status).type('application/json').send(result.json);
      else if (result.body === undefined) res.status(result.status).end();
      else res.status(result.status).json(result.body);
    } catch (err) {
      sendProblem(req, res, toAppError(err, locals(res).logger));
    }
  };
}

/** `X-Page-Next` when another page exists. */
export function pageHeaders(pageInfo: { hasNextPage: boolean; endCursor: string | null }): Record<string, string> {
  return pageInfo.hasNextPage && pageInfo.endCursor ? { 'X-Page-Next': pageInfo.endCursor } : {};
}
