import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import type { MemoryRateLimiter } from '../../platform/api/rate-limit.js';
import type { EventAcceptance } from '../../subgraphs/events/public.js';
import type { FacadeDeps } from '../pipeline/route.js';
import { RouteTable, type RouteRegistry } from '../pipeline/routing.js';
import { registerEventRoutes } from './events.routes.js';
import { registerInventoryRoutes } from './inventory.routes.js';
import { registerPrivacyRoutes } from './privacy.routes.js';
import { registerReturnRoutes } from './returns.routes.js';
import { registerOrderRoutes } from './orders.routes.js';
import { registerReturnTagRoutes } from './return-tags.routes.js';
import { registerCustomerRoutes } from './customers.routes.js';
import { registerWebhookRoutes } from './webhooks.routes.js';
import { registerCustomerSubscriptionRoutes } from './customer-subscriptions.routes.js';
import type { WebhookSubscriptions } from '../../webhooks/public.js';
import { v2Cors, v2Surface } from './surface.js';

export interface V2Options {
  accounts: AccountsService;
  adminToken: string;
  /** The generous per-secret limit of every route (per process). */
  secretLimiter: MemoryRateLimiter;
  /** Custom event acceptance, called directly by the event routes. */
  events: EventAcceptance;
  /** Webhook subscriptions, called directly by the webhook routes. */
  webhooks: WebhookSubscriptions;
}

/** The REST API v2.2: every route authenticates, then runs one GraphQL operation. */
export function v2Routes(deps: FacadeDeps, options: V2Options): RouteTable {
  const routes = new RouteTable(v2Surface(options.accounts, options.adminToken, options.secretLimiter), deps);
  routes.router.use(v2Cors((path) => routes.allowed(path)));
  registerV2Routes(routes, options);
  routes.mountFallbacks();
  return routes;
}

/** What /v2.2 routes call besides the gateway (read when a request comes). */
export interface V2Services {
  readonly events: EventAcceptance;
  readonly webhooks: WebhookSubscriptions;
}

/** Every /v2.2 route, on the table that serves them or on a list that documents them (openapi.ts). */
export function registerV2Routes(routes: RouteRegistry, services: V2Services): void {
  registerReturnRoutes(routes);
  registerOrderRoutes(routes);
  registerReturnTagRoutes(routes);
  registerInventoryRoutes(routes);
  registerEventRoutes(routes, services);
  registerCustomerRoutes(routes);
  registerCustomerSubscriptionRoutes(routes);
  registerWebhookRoutes(routes, services);
  registerPrivacyRoutes(routes);
}
