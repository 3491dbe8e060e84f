import type { ApolloGateway } from '@apollo/gateway';
import type { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type NextFunction, type Request, type Response } from 'express';
import { GraphQLError } from 'graphql';
import type { AccountsService } from '../platform/accounts/accounts.service.js';
import type { Config } from '../platform/config.js';
import { MemoryRateLimiter } from '../platform/rate-limit.js';
import { credentialsFrom } from '../platform/auth.js';
import { AppError, PROBLEM_TITLES, problemTitle } from '../platform/errors.js';
import { RequestContext, type GraphQLContext } from '../platform/graphql/context.js';
import { newId } from '../platform/ids.js';
import type { Logger } from '../platform/logger.js';
import { GatewayClient } from '../rest-facade/gateway-client.js';
import { locals, RequestLocals, sendProblem, toAppError } from '../rest-facade/problem.js';
import { routeNotFound } from '../rest-facade/routing.js';
import { v2Router } from '../rest-facade/v2/index.js';

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
  /** Gateway roles: the gateway the REST facade runs its operations on (no facade without one). */
  gateway?: ApolloGateway;
  ready(): Promise<{ database: boolean; queue: boolean }>;
}

const REQUEST_ID_RE = /^[\w.:-]{1,200}$/;

export function createHttpApp(options: HttpAppOptions): express.Express {
  const { logger } = options;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'extended');

  // Request id (echoed when the caller sends a sane one) and one access log line per request.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && REQUEST_ID_RE.test(given) ? given : newId('request');
    res.setHeader('X-Request-Id', requestId);
    res.locals.request = new RequestLocals(requestId, logger);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (logger.isLevelEnabled('info')) {
        locals(res).logger.info({ method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
      }
    });
    next();
  });

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const checks = await options.ready();
    res.status(checks.database && checks.queue ? 200 : 503).json({ status: checks.database && checks.queue ? 'ready' : 'unavailable', checks });
  });
  app.get('/problems/:slug', (req, res, next) => {
    const slug = String(req.params.slug);
    if (!(slug in PROBLEM_TITLES)) return next();
    res.type('text/plain').send(`${problemTitle(slug)}\n\nProblem type /problems/${slug}. See docs/errors.md for when it occurs and what to do.\n`);
  });

  app.use(
    '/graphql',
    // A subgraph process receives the facade's operations, which carry REST bodies of up to 5 MB (events).
    express.json({ limit: options.subgraphServer ? '6mb' : '1mb' }),
    expressMiddleware(options.graphql, {
      context: async ({ req, res }): Promise<GraphQLContext> => {
        const credentials = credentialsFrom(req.headers);
        if (!options.subgraphServer) delete credentials.compatKey;
        const principal = await options.accounts.authenticate(credentials, options.adminToken);
        if (!principal) {
          throw new GraphQLError('Send the admin token or an API secret as "Authorization: Bearer <token>".', {
            extensions: { code: 'UNAUTHENTICATED', http: { status: 401, headers: new Map([['www-authenticate', 'Bearer realm="graphql"']]) } },
          });
        }
        return new RequestContext(principal, credentials, locals(res));
      },
    }),
  );

  if (options.gateway) {
    const v2 = v2Router({
      accounts: options.accounts,
      adminToken: options.adminToken,
      gateway: new GatewayClient(options.gateway, logger),
      secretLimiter: new MemoryRateLimiter(options.config.apiRateLimitPerMinute, 60_000),
    });
    app.use('/v2.2', v2.router);
  }

  app.use((req: Request, _res: Response, next: NextFunction) => next(routeNotFound(req)));
  // The one place errors become HTTP responses.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const e = err as { type?: string; status?: number };
    let error: AppError;
    if (e?.type === 'entity.parse.failed') error = new AppError('invalid_data', 'invalid-json', 'The body is not valid JSON.');
    else if (e?.type === 'entity.too.large') error = new AppError('payload_too_large', 'payload-too-large', 'The body is too large.');
    else error = toAppError(err, locals(res).logger);
    sendProblem(req, res, error);
  });
  return app;
}
