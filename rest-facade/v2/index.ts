import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import type { MemoryRateLimiter } from '../../platform/rate-limit.js';
import type { EventAcceptance } from '../../subgraphs/events/public.js';
import type { FacadeDeps } from '../pipeline/route.js';
import { RouteTable } from '../pipeline/routing.js';
import { registerEventRoutes } from './events.routes.js';
import { registerInventoryRoutes } from './inventory.routes.js';
import { registerReturnRoutes } from './returns.routes.js';
import { v2Cors, v2Surface } from './surface.js';

export interface V2Options {
  accounts: AccountsService;
  adminToken: string;
  /** The generous per-secret limit of every route (per process). */
  secretLimiter: MemoryRateLimiter;
  /** Custom event acceptance, called directly by the event routes. */
  events: EventAcceptance;
}

/** The REST API v2.2: every route authenticates, then runs one GraphQL operation. */
export function v2Routes(deps: FacadeDeps, options: V2Options): RouteTable {
  const routes = new RouteTable(v2Surface(options.accounts, options.adminToken, options.secretLimiter), deps);
  routes.router.use(v2Cors((path) => routes.allowed(path)));
  registerReturnRoutes(routes);
  registerInventoryRoutes(routes);
  registerEventRoutes(routes, options.events);
  routes.mountFallbacks();
  return routes;
}
