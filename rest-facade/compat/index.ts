import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import type { SharedRateLimiter } from '../../platform/api/rate-limit.js';
import type { FacadeDeps } from '../pipeline/route.js';
import { RouteTable } from '../pipeline/routing.js';
import { registerCompatReportingRoutes } from './reporting.routes.js';
import { registerCompatReturnRoutes } from './returns.routes.js';
import { compatSurface } from './surface.js';
import { registerCompatWebhookRoutes } from './webhooks.routes.js';
import type { WebhookSubscriptions } from '../../webhooks/public.js';

export interface CompatOptions {
  accounts: AccountsService;
  adminToken: string;
  /** The per-key limit, counted in PostgreSQL. */
  limiter: SharedRateLimiter;
  /** Loop's webhook API calls the webhooks module directly. */
  webhooks: WebhookSubscriptions;
}

/** The Loop-compatible API (mounted at /api/v1 and /api/2026-07): the ten warehouse endpoints of the contract and Loop's webhook API. */
export function compatRoutes(deps: FacadeDeps, options: CompatOptions): RouteTable {
  const routes = new RouteTable(compatSurface(options.accounts, options.adminToken, options.limiter), deps);
  registerCompatReturnRoutes(routes);
  registerCompatReportingRoutes(routes);
  registerCompatWebhookRoutes(routes, options);
  routes.mountFallbacks();
  return routes;
}
