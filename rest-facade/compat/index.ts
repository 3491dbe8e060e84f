import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import type { SharedRateLimiter } from '../../platform/api/rate-limit.js';
import type { FacadeDeps } from '../pipeline/route.js';
import { RouteTable } from '../pipeline/routing.js';
import { registerCompatReportingRoutes } from './reporting.routes.js';
import { registerCompatReturnRoutes } from './returns.routes.js';
import { compatSurface } from './surface.js';

export interface CompatOptions {
  accounts: AccountsService;
  adminToken: string;
  /** The per-key limit, counted in PostgreSQL. */
  limiter: SharedRateLimiter;
}

/** The Loop-compatible warehouse API (mounted at /api/v1 and /api/2026-07): the ten endpoints of the contract. */
export function compatRoutes(deps: FacadeDeps, options: CompatOptions): RouteTable {
  const routes = new RouteTable(compatSurface(options.accounts, options.adminToken, options.limiter), deps);
  registerCompatReturnRoutes(routes);
  registerCompatReportingRoutes(routes);
  routes.mountFallbacks();
  return routes;
}
