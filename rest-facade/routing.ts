import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { match } from 'path-to-regexp';
import { AppError } from '../platform/errors.js';

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * An Express router that also knows its route table, so a known path called
 * with another method answers 405 with `Allow` instead of 404.
 */
export class RouteTable {
  readonly router = Router({ mergeParams: true });
  private readonly paths = new Map<string, { matches: (path: string) => boolean; methods: Set<Method> }>();

  add(method: Method, path: string, handler: RequestHandler): this {
    let entry = this.paths.get(path);
    if (!entry) {
      const test = match(path, { decode: decodeURIComponent });
      entry = { matches: (p) => test(p) !== false, methods: new Set() };
      this.paths.set(path, entry);
    }
    entry.methods.add(method);
    this.router[method.toLowerCase() as Lowercase<Method>](path, handler);
    return this;
  }

  /** Methods allowed on a path (relative to where the router is mounted). */
  allowed(path: string): Method[] {
    const methods = new Set<Method>();
    for (const entry of this.paths.values()) if (entry.matches(path)) entry.methods.forEach((m) => methods.add(m));
    return [...methods];
  }

  /** Mount after the routes: turns "no route matched" into 405 or 404. */
  fallback(): RequestHandler {
    return (req: Request, _res: Response, next: NextFunction) => {
      const allowed = this.allowed(req.path);
      if (allowed.length && !allowed.includes(req.method as Method)) {
        const allow = [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
        return next(new AppError('method_not_allowed', 'method-not-allowed', `${req.method} is not allowed here; use ${allowed.join(', ')}.`, { headers: { Allow: allow } }));
      }
      next(routeNotFound(req));
    };
  }
}

export function routeNotFound(req: Request): AppError {
  return new AppError('not_found', 'route-not-found', `No route for ${req.method} ${req.originalUrl.split('?')[0]}.`);
}
