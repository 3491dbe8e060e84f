import type { NextFunction, Request, Response, Router } from 'express';
import { RouteTable } from '../routing.js';
import { registerInventoryRoutes } from './inventory.routes.js';
import { registerEventRoutes } from './events.routes.js';
import { registerReturnRoutes } from './returns.routes.js';
import type { V2Deps } from './route.js';

const EXPOSED_HEADERS = 'X-Page-Next, X-Request-Id, Retry-After, RateLimit, RateLimit-Policy';
const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, X-Page-Size, X-Page-Continue, X-Request-Id';

/** The REST API v2.2: every route authenticates, then runs one GraphQL operation. */
export function v2Router(deps: V2Deps): { router: Router; routes: RouteTable } {
  const routes = new RouteTable();
  // Bearer auth and no cookies: any origin may call the API from a browser.
  routes.router.use((req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    if (req.method !== 'OPTIONS') return next();
    const allowed = routes.allowed(req.path);
    if (!allowed.length) return next();
    res.setHeader('Access-Control-Allow-Methods', [...allowed, 'OPTIONS'].join(', '));
    res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    res.setHeader('Access-Control-Max-Age', '600');
    res.status(204).end();
  });
  registerReturnRoutes(routes, deps);
  registerInventoryRoutes(routes, deps);
  registerEventRoutes(routes, deps);
  routes.router.use(routes.fallback());
  return { router: routes.router, routes };
}
