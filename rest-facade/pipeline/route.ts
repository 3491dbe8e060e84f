import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import { hasScope, scopeForbidden, storeNotFound, type Principal, type Scope } from '../../platform/api/auth.js';
import { invalid, type FieldError } from '../../platform/errors.js';
import type { ProblemSlug } from '../../platform/problems.js';
import { storeVisible } from '../../platform/graphql/authorize.js';
import { RequestContext } from '../../platform/graphql/context.js';
import { textProblem, violationsOf } from '../../platform/validation/index.js';
import type { GatewayClient, Operation } from '../gateway-client.js';
import { readJsonBody } from './body.js';
import { locals, toAppError } from './request-locals.js';
import type { ApiSurface, PageParams, PageResult } from './surface.js';

/** What every route of every surface shares. */
export interface FacadeDeps {
  accounts: AccountsService;
  gateway: GatewayClient;
}

export interface RouteContext<Query, Body> {
  req: Request;
  principal: Principal;
  params: Record<string, string>;
  query: Query;
  body: Body;
  page: PageParams;
  /** Runs one GraphQL operation as the caller. */
  graphql<T>(op: Operation, variables: Record<string, unknown>): Promise<T>;
}

export interface RouteResult {
  status: number;
  body?: unknown;
  /** A body already serialised (documents a subgraph built as JSON text). */
  json?: string;
  /**
   * A JSON body written as it is produced (a document too large to hold, such as a customer
   * export). The status and headers go first, so a failure after that cuts the response short
   * (the client sees incomplete JSON, never a wrong complete one).
   */
  stream?: AsyncIterable<string>;
  headers?: Record<string, string>;
  /** A list's page: the surface's pagination presents the next one. */
  page?: PageResult;
}

/** A header a route reads or answers with, as the API reference shows it. */
export interface HeaderSpec {
  description: string;
  /** A string unless said otherwise. */
  schema?: TSchema;
  required?: boolean;
}

/** One answer of a route: the API reference (OpenAPI) is generated from these. */
export interface ResponseSpec {
  description: string;
  /** The JSON body (absent: no body). */
  schema?: TSchema;
  /** Headers of this answer beyond the ones every answer of the API carries. */
  headers?: Record<string, HeaderSpec>;
}

/** Problem slugs by HTTP status. */
export type ProblemsByStatus = Partial<Record<number, readonly ProblemSlug[]>>;

export interface RouteSpec<Q extends TObject, B extends TSchema> {
  /** Names the operation in the API reference and the generated clients (unique per API). */
  operationId?: string;
  /** The group the API reference lists the operation under. */
  tag?: string;
  /** The scope the credentials need (403 otherwise); checked after the store. */
  scope: Scope;
  /** The query parameters the route takes (strings); any other is ignored (decisions section 17). */
  query?: Q;
  paginated?: boolean;
  /**
   * A JSON body of at most `limit` bytes. `schema` documents it; the facade
   * checks it unless the graph does (`checkedBy: 'graph'`, for bodies GraphQL
   * clients send too, so both get the same answer from one place).
   */
  body?: { limit: number; schema: B; checkedBy?: 'facade' | 'graph'; /** A request without a body (no bytes) is allowed; the handler sees `undefined`. */ optional?: boolean };
  summary?: string;
  description?: string;
  /** Request headers the handler reads (the pipeline's own are the surface's to document). */
  headers?: Record<string, HeaderSpec>;
  /** Every success the handler answers with, by status; the API reference requires them. */
  responses?: Record<number, ResponseSpec>;
  /**
   * The problems the route's own work (its handler, its GraphQL operation)
   * answers with, by status; the pipeline's are added by `pipelineProblems`.
   * The contract test fails on a problem a route answers but does not list.
   */
  problems?: ProblemsByStatus;
  handle(ctx: RouteContext<Static<Q>, Static<B>>): Promise<RouteResult>;
}

/** A route as its table keeps it: the spec (for documentation) and its handler. */
export interface Route {
  spec: RouteSpec<TObject, TSchema>;
  handler: RequestHandler;
}

/**
 * The problems the pipeline itself may answer a route with (documentation):
 * credentials (401) and the surface's per-caller limit (429), an unknown or
 * foreign store (404), the scope (403), path and query (400), pagination, and
 * the body's content type, size and JSON (415, 413, 400), and the database
 * being unreachable (503). Kept beside the
 * pipeline so the two change together.
 */
export function pipelineProblems(path: string, spec: RouteSpec<TObject, TSchema>, pagination: ProblemsByStatus = {}): ProblemsByStatus {
  const problems: Record<number, ProblemSlug[]> = {};
  const add = (status: number, ...slugs: readonly ProblemSlug[]) => (problems[status] ??= []).push(...slugs.filter((s) => !problems[status]!.includes(s)));
  add(401, 'unauthorized');
  add(429, 'rate-limited');
  if (path.includes(':')) add(400, 'invalid-url', 'validation-failed');
  if (path.includes(':storeId')) add(404, 'store-not-found');
  add(403, 'scope-forbidden');
  if (spec.query) add(400, 'validation-failed');
  if (spec.paginated) for (const [status, slugs] of Object.entries(pagination)) add(Number(status), ...slugs!);
  if (spec.body) {
    add(415, 'unsupported-media-type');
    add(413, 'payload-too-large');
    add(400, 'invalid-json', 'validation-failed');
  }
  add(500, 'internal-error');
  // Answered before any route while the database is unreachable (server/http/http-app.ts).
  add(503, 'service-unavailable');
  return problems;
}

const queryPointer = (name: string) => `query#${name}`;

/** A request that carries no body bytes at all (no length, or a zero length, and no chunked encoding). */
function hasNoBody(req: Request): boolean {
  return req.headers['transfer-encoding'] === undefined && (req.headers['content-length'] === undefined || req.headers['content-length'] === '0');
}

/** A value from the URL (path or query) that PostgreSQL could not store is refused where it is. */
function checkText(value: string, pointer: string, errors: FieldError[]): void {
  const problem = textProblem(value);
  if (problem) errors.push({ pointer, detail: problem });
}

function readParams(req: Request): Record<string, string> {
  const errors: FieldError[] = [];
  const params = req.params as Record<string, string>;
  for (const [name, value] of Object.entries(params)) checkText(value, `path#${name}`, errors);
  if (errors.length) throw invalid('validation-failed', 'A path segment is invalid.', errors);
  return params;
}

/** At most this many ignored names are reported, each cut to this many characters: a header and a log line stay small. */
const IGNORED_REPORTED = { names: 20, length: 64 };

/**
 * The route's own and the pagination style's parameters, each given once and
 * storable; the others are ignored, as the real platforms ignore them
 * (decisions section 17), and named in the request's log line (and in the
 * surface's header, percent-encoded so any name is a safe header value).
 */
function readQuery(req: Request, res: Response, schema: TObject | undefined, extra: readonly string[], header: string | undefined): Record<string, string> {
  const allowed = [...Object.keys(schema?.properties ?? {}), ...extra];
  const query: Record<string, string> = Object.create(null) as Record<string, string>;
  const errors: FieldError[] = [];
  const ignored: string[] = [];
  for (const [name, value] of Object.entries(req.query as Record<string, unknown>)) {
    if (!allowed.includes(name)) {
      // Cut by code points, so no surrogate pair is split (encodeURIComponent refuses a lone one).
      if (ignored.length < IGNORED_REPORTED.names) ignored.push(encodeURIComponent([...name].slice(0, IGNORED_REPORTED.length).join('')));
      continue;
    }
    if (typeof value !== 'string') {
      errors.push({ pointer: queryPointer(name), detail: 'must be given once' });
      continue;
    }
    checkText(value, queryPointer(name), errors);
    query[name] = value;
  }
  if (ignored.length) {
    locals(res).ignoredParameters = ignored;
    if (header) res.setHeader(header, ignored.join(', '));
  }
  if (!errors.length && schema) {
    // The route's own parameters against its schema; the pagination style reads its own.
    const own = Object.fromEntries(Object.entries(query).filter(([name]) => Object.hasOwn(schema.properties, name)));
    for (const e of violationsOf(schema, own)) errors.push({ pointer: queryPointer(e.pointer.slice(1)), detail: e.detail });
  }
  if (errors.length) throw invalid('validation-failed', 'A query parameter is invalid.', errors);
  return query;
}

/**
 * The pipeline every REST route of every surface runs, in the contract's
 * order (decisions section 15): credentials and the caller's limits (401,
 * 429), store (404), scope (403), path and query (400), content type (415),
 * size (413), JSON (400), the body's rules (400), then the route's one
 * GraphQL operation. Errors go out in the surface's format.
 */
export function route<Q extends TObject, B extends TSchema>(surface: ApiSurface, deps: FacadeDeps, spec: RouteSpec<Q, B>): Route {
  const handler = async (req: Request, res: Response, _next: NextFunction) => {
    try {
      const { principal, credentials } = await surface.authenticate(req);
      const context = new RequestContext(principal, credentials, locals(res));
      const params = readParams(req);
      if (params.storeId !== undefined && !(await storeVisible(context, deps.accounts, params.storeId))) throw storeNotFound(params.storeId);
      if (!hasScope(principal, spec.scope)) throw scopeForbidden(spec.scope);
      const pagination = spec.paginated ? surface.pagination : undefined;
      const query = readQuery(req, res, spec.query, pagination?.params ?? [], surface.ignoredParametersHeader);
      const page = pagination ? pagination.read(req, query) : { first: 0, after: undefined };
      let body: unknown;
      if (spec.body && !(spec.body.optional && hasNoBody(req))) {
        body = await readJsonBody(req, res, spec.body.limit);
        if (spec.body.checkedBy !== 'graph') {
          const errors = violationsOf(spec.body.schema, body);
          if (errors.length) throw invalid('validation-failed', 'The body is invalid.', errors);
        }
      }
      const result = await spec.handle({
        req,
        principal,
        params,
        query: query as Static<Q>,
        body: body as Static<B>,
        page,
        graphql: (op, variables) => deps.gateway.execute(op, variables, context),
      });
      const shown = result.page && pagination ? pagination.present(req, res, result.page, result.body) : result.body;
      for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
      if (result.stream) await sendStream(res, result.status, result.stream);
      else if (result.json !== undefined) res.status(result.status).type('application/json').send(result.json);
      else if (shown === undefined) res.status(result.status).end();
      else res.status(result.status).json(shown);
    } catch (err) {
      surface.sendError(req, res, toAppError(err, locals(res).logger));
    }
  };
  return { spec: spec as unknown as RouteSpec<TObject, TSchema>, handler };
}

/** Writes a streamed body, waiting whenever the client reads slower than it is produced. */
async function sendStream(res: Response, status: number, chunks: AsyncIterable<string>): Promise<void> {
  res.status(status).type('application/json');
  try {
    for await (const chunk of chunks) {
      if (res.destroyed) return;
      if (!res.write(chunk)) await new Promise((resume) => res.once('drain', resume).once('close', resume));
    }
    res.end();
  } catch (err) {
    locals(res).logger.error({ err }, 'streamed response failed after it started');
    res.destroy();
  }
}
