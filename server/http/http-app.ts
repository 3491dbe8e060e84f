import type { ApolloGateway } from '@apollo/gateway';
import type { ApolloServer } from '@apollo/server';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import type { Config } from '../../platform/config.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import { newId } from '../../platform/ids.js';
import type { Logger } from '../../platform/observability/logger.js';
import { isProblemSlug, problemExplanation, problemTitle } from '../../platform/problems.js';
import type { Orm } from '../../platform/db/orm.js';
import { MemoryRateLimiter, SharedRateLimiter } from '../../platform/api/rate-limit.js';
import { compatRoutes } from '../../rest-facade/compat/index.js';
import { API_DOCUMENTS } from '../../rest-facade/documents.js';
import { GatewayClient } from '../../rest-facade/gateway-client.js';
import { locals, RequestLocals, toAppError } from '../../rest-facade/pipeline/request-locals.js';
import { routeNotFound, routerError } from '../../rest-facade/pipeline/routing.js';
import { v2Routes } from '../../rest-facade/v2/index.js';
import type { EventAcceptance, MessagingEndpoints } from '../../subgraphs/events/public.js';
import { consentPages } from '../pages/unsubscribe.js';
import type { WebhookSubscriptions } from '../../webhooks/public.js';
import { sendProblem } from '../../rest-facade/v2/surface.js';
import { developerPortal } from '../pages/developer-portal.js';
import { graphqlHttp } from './graphql-http.js';
import { requestSpanNamer } from '../../platform/observability/tracing.js';
import { httpMetrics, metricsEndpoint, routeLabel, UNMATCHED_ROUTE } from './metrics-http.js';
import { answerUnavailable, requestDeadline } from './request-deadline.js';
import type { Readiness } from '../runtime.js';

export interface HttpAppOptions {
  config: Config;
  logger: Logger;
  accounts: AccountsService;
  adminToken: string;
  /** The gateway's server (gateway roles) or a subgraph's own server (subgraph role). */
  graphql: ApolloServer<GraphQLContext>;
  /**
   * A subgraph process behind a gateway (split mode): its /graphql also takes the forwarded
   * compatibility key and the facade's large bodies.
   */
  subgraphServer?: boolean;
  /** Gateway roles: the gateway the REST facades run their operations on (no facade without one). */
  gateway?: ApolloGateway;
  /** The platform schema's ORM: limits that hold across processes keep their counters there. */
  platformOrm: Orm;
  /** Gateway roles: custom event acceptance (the event routes call it directly). */
  events?: EventAcceptance;
  /** Gateway roles: webhook subscriptions (the webhook routes call them directly). */
  webhooks?: WebhookSubscriptions;
  /** Gateway roles: the unsubscribe link and the inbound SMS webhook (no credentials: a signed token, a store's secret). */
  messaging?: MessagingEndpoints;
  ready(): Promise<Readiness>;
  /** False while the database is unreachable: API calls answer 503 (Retry-After) instead of failing one by one. */
  databaseAvailable?: () => boolean;
}

/** The GraphQL operation a request names: `operationName`, else the name of the document's first operation. */
function graphqlOperationName(req: Request): string | undefined {
  const body = (req.body ?? {}) as { operationName?: unknown; query?: unknown };
  const source = req.method === 'GET' ? (req.query as Record<string, unknown>) : body;
  if (typeof source.operationName === 'string' && source.operationName) return source.operationName;
  if (typeof source.query !== 'string') return undefined;
  return /^\s*(?:#[^\n]*\n\s*)*(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/.exec(source.query)?.[1];
}

const REQUEST_ID_RE = /^[\w.:-]{1,200}$/;

/** Where the compatibility API is served: Loop's path, and its dated version alias (decisions section 1). */
const COMPAT_PATHS = ['/api/v1', '/api/2026-07'];

/** Gateway roles: the REST APIs (/v2.2 and the compatibility API), each a surface with its routes. */
function restFacade(options: HttpAppOptions) {
  if (!options.gateway || !options.events || !options.webhooks) return undefined;
  const deps = { accounts: options.accounts, gateway: new GatewayClient(options.gateway, options.logger) };
  const v2 = v2Routes(deps, {
    accounts: options.accounts,
    adminToken: options.adminToken,
    secretLimiter: new MemoryRateLimiter(options.config.apiRateLimitPerMinute, 60_000),
    events: options.events,
    webhooks: options.webhooks,
  });
  const compat = compatRoutes(deps, {
    accounts: options.accounts,
    adminToken: options.adminToken,
    limiter: new SharedRateLimiter(options.platformOrm, options.config.compatRateLimitPerMinute, 60, options.logger),
    webhooks: options.webhooks,
  });
  return { v2, compat };
}

export function createHttpApp(options: HttpAppOptions): express.Express {
  const { logger } = options;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Node's own parser: repeated names become arrays (refused as such) and no name is dropped, `__proto__` included.
  app.set('query parser', 'simple');
  app.use(httpMetrics());

  // Request id (echoed when the caller sends a sane one) and one access log line per request.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && REQUEST_ID_RE.test(given) ? given : newId('request');
    res.setHeader('X-Request-Id', requestId);
    res.locals.request = new RequestLocals(requestId, logger);
    const started = process.hrtime.bigint();
    const nameSpan = requestSpanNamer();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const logging = logger.isLevelEnabled('info');
      if (!nameSpan && !logging) return;
      const route = routeLabel(req, res);
      if (nameSpan && route !== UNMATCHED_ROUTE) nameSpan(route);
      if (logging) {
        // The path as the client sent it (mount prefix included, query left out), the route it matched.
        const path = req.originalUrl.split('?')[0];
        const operation = route === '/graphql' ? graphqlOperationName(req) : undefined;
        const { ignoredParameters } = locals(res);
        locals(res).logger.info(
          { method: req.method, path, route, ...(operation ? { operation } : {}), ...(ignoredParameters ? { ignoredParameters } : {}), status: res.statusCode, ms: Math.round(ms * 10) / 10 },
          'request',
        );
      }
    });
    next();
  });
  app.use(requestDeadline(options.config.requestTimeoutMs));
  // Requests for an API are its surface's from here on: what answers before their router (the
  // database gate below, the deadline) answers in that API's format.
  const facade = restFacade(options);
  if (facade) {
    app.use('/v2.2', facade.v2.claim);
    app.use(COMPAT_PATHS, facade.compat.claim);
  }

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const checks = await options.ready();
    res.status(checks.database && checks.queue ? 200 : 503).json({ status: checks.database && checks.queue ? 'ready' : 'unavailable', checks });
  });
  // While the database is away, calls that need it get a clear 503 at once (the load balancer reads /readyz).
  const databaseAvailable = options.databaseAvailable;
  if (databaseAvailable) {
    app.use(['/v2.2', '/graphql', '/api', '/u', '/sms'], (req: Request, res: Response, next: NextFunction) => {
      if (databaseAvailable()) return next();
      answerUnavailable(req, res, 'The database is unreachable; the service is recovering. Retry shortly.');
    });
  }
  app.get('/metrics', metricsEndpoint({ adminToken: options.adminToken, metricsToken: options.config.metricsToken }));
  // The documentation page of every problem type the service answers with.
  app.get('/problems/:slug', (req, res, next) => {
    const slug = String(req.params.slug);
    if (!isProblemSlug(slug)) return next();
    res.type('text/plain').send(`${problemTitle(slug)}\n\n${problemExplanation(slug)}\n`);
  });

  // Gateway roles: the index, the OpenAPI documents, the API reference and the GraphQL explorer (before /graphql).
  if (options.gateway) app.use(developerPortal({ documents: API_DOCUMENTS.map((d) => ({ servedAt: d.servedAt, document: d.build() })) }));

  if (options.gateway && options.messaging) app.use(consentPages(options.messaging));

  app.use('/graphql', ...graphqlHttp({ accounts: options.accounts, adminToken: options.adminToken, server: options.graphql, subgraphServer: options.subgraphServer ?? false }));

  if (facade) {
    app.use('/v2.2', facade.v2.router);
    app.use(COMPAT_PATHS, facade.compat.router);
  }

  app.use((req: Request, _res: Response, next: NextFunction) => next(routeNotFound(req)));
  // Errors outside the API surfaces (each answers its own): problem details.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    sendProblem(req, res, routerError(err) ?? toAppError(err, locals(res).logger));
  });
  return app;
}
