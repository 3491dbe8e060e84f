import type { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { GraphQLError } from 'graphql';
import type { AccountsService } from '../platform/accounts/accounts.service.js';
import { credentialsFrom } from '../platform/auth.js';
import { databaseUnavailable, isDatabaseUnavailable, type FieldError } from '../platform/errors.js';
import { RequestContext, type GraphQLContext } from '../platform/graphql/context.js';
import { inspectJson, MAX_JSON_DEPTH, textProblem } from '../platform/validation/index.js';
import { locals } from '../rest-facade/pipeline/request-locals.js';

export interface GraphQLHttpOptions {
  accounts: AccountsService;
  adminToken: string;
  server: ApolloServer<GraphQLContext>;
  /** A subgraph process behind a gateway (split mode) also takes the forwarded compatibility key, and the facade's large bodies. */
  subgraphServer: boolean;
}

/**
 * The deepest bracket nesting of a GraphQL document (string literals skipped):
 * the parser and value coercion recurse on it, so it is bounded before either runs.
 */
export function documentNesting(source: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '"') {
      const block = source.startsWith('"""', i);
      const end = block ? source.indexOf('"""', i + 3) : nextQuote(source, i + 1);
      if (end < 0) break;
      i = block ? end + 2 : end;
    } else if (c === '#') {
      const end = source.indexOf('\n', i);
      if (end < 0) break;
      i = end;
    } else if (c === '{' || c === '[' || c === '(') {
      max = Math.max(max, ++depth);
    } else if (c === '}' || c === ']' || c === ')') {
      depth--;
    }
  }
  return max;
}

function nextQuote(source: string, from: number): number {
  for (let i = from; i < source.length; i++) {
    if (source[i] === '\\') i++;
    else if (source[i] === '"' || source[i] === '\n') return i;
  }
  return -1;
}

/** A request-level GraphQL error (HTTP 400) naming every problem with its pointer. */
function badRequest(res: Response, message: string, errors: FieldError[]): void {
  res.status(400).json({ errors: [{ message, extensions: { code: 'BAD_USER_INPUT', errors } }] });
}

/**
 * The input-hygiene rules of every entry point, on a GraphQL request: the
 * document's text and nesting, the variables (every string, key, number and
 * nesting level), before Apollo parses, validates or coerces anything.
 */
function hygiene(req: Request, res: Response, next: NextFunction): void {
  const body = req.body as { query?: unknown; variables?: unknown; operationName?: unknown } | undefined;
  if (!body || typeof body !== 'object') return next();
  const errors: FieldError[] = [];
  for (const key of ['query', 'operationName'] as const) {
    const value = body[key];
    const problem = typeof value === 'string' ? textProblem(value) : undefined;
    if (problem) errors.push({ pointer: `/${key}`, detail: problem });
  }
  if (typeof body.query === 'string' && documentNesting(body.query) > MAX_JSON_DEPTH) {
    errors.push({ pointer: '/query', detail: `nests deeper than ${MAX_JSON_DEPTH} levels` });
  }
  errors.push(...inspectJson(body.variables, { pointer: '/variables' }));
  if (errors.length) return badRequest(res, 'The request holds values that cannot be processed.', errors);
  next();
}

/** `/graphql`: JSON body, input hygiene, then Apollo with the caller's credentials (HTTP 401 without). */
export function graphqlHttp(options: GraphQLHttpOptions): RequestHandler[] {
  return [
    // A subgraph process receives the facade's operations, which carry REST bodies of up to 5 MB (events).
    express.json({ limit: options.subgraphServer ? '6mb' : '1mb' }),
    hygiene,
    expressMiddleware(options.server, {
      context: async ({ req, res }): Promise<GraphQLContext> => {
        const credentials = credentialsFrom(req.headers);
        if (!options.subgraphServer) delete credentials.compatKey;
        const principal = await options.accounts.authenticate(credentials, options.adminToken).catch((err: unknown) => {
          // Apollo answers a failed context with HTTP 500: a database away is 503 (retry), as everywhere else.
          if (!isDatabaseUnavailable(err)) throw err;
          const unavailable = databaseUnavailable();
          throw new GraphQLError(unavailable.message, { extensions: { ...unavailable.extensions, http: { status: 503, headers: new Map([['retry-after', '2']]) } } });
        });
        if (!principal) {
          throw new GraphQLError('Send the admin token or an API secret as "Authorization: Bearer <token>".', {
            extensions: { code: 'UNAUTHENTICATED', http: { status: 401, headers: new Map([['www-authenticate', 'Bearer realm="graphql"']]) } },
          });
        }
        return new RequestContext(principal, credentials, locals(res));
      },
    }),
  ];
}
