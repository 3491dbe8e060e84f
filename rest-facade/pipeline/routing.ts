import { Router, type NextFunction, type Request, type Response } from 'express';
import type { TObject, TSchema } from '@sinclair/typebox';
import { match } from 'path-to-regexp';
import { AppError } from '../../platform/errors.js';
import { locals, toAppError } from './request-locals.js';
import { route, type FacadeDeps, type Route, type RouteSpec } from './route.js';
import type { ApiSurface } from './surface.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface TableEntry {
  method: Method;
  path: string;
  route: Route;
}

/** Where an API's routes are registered: the table that serves them, or a list that only documents them. */
export interface RouteRegistry {
  add<Q extends TObject, B extends TSchema>(method: Method, path: string, spec: RouteSpec<Q, B>): this;
}

/** What the API reference reads of a table: each route's method, path (Express syntax) and spec. */
export interface DocumentedTable {
  readonly entries: readonly { method: Method; path: string; route: { spec: RouteSpec<TObject, TSchema> } }[];
}

/**
 * The routes of an API recorded without serving them, so its OpenAPI
 * document can be generated with no database or gateway (`npm run openapi`):
 * the same registration functions fill it and the served RouteTable.
 */
export class RouteList implements RouteRegistry, DocumentedTable {
  readonly entries: { method: Method; path: string; route: { spec: RouteSpec<TObject, TSchema> } }[] = [];

  add<Q extends TObject, B extends TSchema>(method: Method, path: string, spec: RouteSpec<Q, B>): this {
    this.entries.push({ method, path, route: { spec: spec as unknown as RouteSpec<TObject, TSchema> } });
    return this;
  }
}

/** Decodes a path segment; a malformed percent-encoding matches nothing (and is answered 400 before any route runs). */
function decode(segment: string): string {
  return decodeURIComponent(segment);
}

/**
 * The routes of one API surface: an Express router that knows its route
 * table, so a known path called with another method answers 405 with `Allow`
 * instead of 404, and every miss or router error is answered in the
 * surface's own format.
 */
export class RouteTable implements RouteRegistry, DocumentedTable {
  readonly router = Router({ mergeParams: true });
  readonly entries: TableEntry[] = [];
  private readonly paths = new Map<string, { matches: (path: string) => boolean; methods: Set<Method> }>();

  constructor(
    readonly surface: ApiSurface,
    private readonly deps: FacadeDeps,
  ) {
    this.router.use(this.claim);
  }

  /**
   * Marks a request as this surface's (RequestLocals#surface). The router does it first; mounted
   * at the router's paths before other middleware, it lets answers given before routing (the
   * database gate, server/http/http-app.ts) use the surface's format too.
   */
  readonly claim = (_req: Request, res: Response, next: NextFunction): void => {
    locals(res).surface = this.surface;
    next();
  };

  add<Q extends TObject, B extends TSchema>(method: Method, path: string, spec: RouteSpec<Q, B>): this {
    let entry = this.paths.get(path);
    if (!entry) {
      const test = match(path, { decode });
      entry = {
        matches: (p) => {
          try {
            return test(p) !== false;
          } catch {
            return false;
          }
        },
        methods: new Set(),
      };
      this.paths.set(path, entry);
    }
    entry.methods.add(method);
    const built = route(this.surface, this.deps, spec);
    this.entries.push({ method, path, route: built });
    this.router[method.toLowerCase() as Lowercase<Method>](path, (req: Request, res: Response, next: NextFunction) => {
      // Metrics count requests by this template, never by the raw URL (one series per route, not per id).
      locals(res).route = req.baseUrl + path;
      return built.handler(req, res, next);
    });
    return this;
  }

  /** Methods allowed on a path (relative to where the router is mounted). */
  allowed(path: string): Method[] {
    const methods = new Set<Method>();
    for (const entry of this.paths.values()) if (entry.matches(path)) entry.methods.forEach((m) => methods.add(m));
    return [...methods];
  }

  /**
   * Mount after the routes: "no route matched" becomes 405 or 404, and an
   * error the router raised itself (a path that is not valid percent-encoded
   * UTF-8) becomes 400, in the surface's format.
   */
  mountFallbacks(): void {
    this.router.use(async (req: Request, res: Response) => {
      const allowed = this.allowed(req.path);
      try {
        const answer = await this.surface.unrouted?.(req, allowed.length > 0);
        if (answer) return this.surface.sendError(req, res, answer);
      } catch (err) {
        return this.surface.sendError(req, res, toAppError(err, locals(res).logger));
      }
      if (allowed.length && !allowed.includes(req.method as Method)) {
        const allow = [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
        return this.surface.sendError(req, res, new AppError('method_not_allowed', 'method-not-allowed', `${req.method} is not allowed here; use ${allowed.join(', ')}.`, { headers: { Allow: allow } }));
      }
      this.surface.sendError(req, res, routeNotFound(req));
    });
    this.router.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
      this.surface.sendError(req, res, routerError(err) ?? toAppError(err, locals(res).logger));
    });
  }
}

export function routeNotFound(req: Request): AppError {
  return new AppError('not_found', 'route-not-found', `No route for ${req.method} ${req.originalUrl.split('?')[0]}.`);
}

/** Client errors raised by Express itself (it marks them with a 4xx status): a malformed path is 400. */
export function routerError(err: unknown): AppError | undefined {
  const e = err as { status?: unknown; statusCode?: unknown } | null;
  const status = typeof e?.status === 'number' ? e.status : typeof e?.statusCode === 'number' ? e.statusCode : undefined;
  if (err instanceof URIError || status === 400) return new AppError('invalid_data', 'invalid-url', 'The path is not valid percent-encoded UTF-8.');
  return undefined;
}
