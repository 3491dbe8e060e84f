import type { ApolloServer } from '@apollo/server';
import { expressMiddleware } from '@as-integrations/express5';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { GraphQLError } from 'graphql';
import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import { credentialsFrom } from '../../platform/api/auth.js';
import { databaseUnavailable, invalid, isAppError, isDatabaseUnavailable, type FieldError } from '../../platform/errors.js';
import { RequestContext, type GraphQLContext } from '../../platform/graphql/context.js';
import { inspectJson, MAX_JSON_DEPTH } from '../../platform/validation/index.js';
import { readJsonBody } from '../../rest-facade/pipeline/body.js';
import { locals } from '../../rest-facade/pipeline/request-locals.js';

const MB = 1024 * 1024;

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
function documentNesting(source: string): number {
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

const unprocessable = (errors: FieldError[]) => invalid('validation-failed', 'The request holds values that cannot be processed.', errors);

/** A GET's `variables` and `extensions` are JSON text; text that is not JSON is left for Apollo to refuse. */
function jsonParameter(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/**
 * The input-hygiene rules of every entry point, on a GraphQL request, before
 * Apollo parses, validates or coerces anything: a POST's body is read as on
 * every JSON route (415, 413, 400: a JSON media type in UTF-8, the size
 * limit, JSON text, one object, every string, key, number and nesting
 * level), a GET's parameters get the same rules, and the document's nesting
 * is bounded. Returns the body Apollo reads (none for a GET).
 */
async function readRequest(req: Request, res: Response, limit: number): Promise<unknown> {
  let request: Record<string, unknown> | undefined;
  if (req.method === 'POST') {
    request = (await readJsonBody(req, res, limit)) as Record<string, unknown>;
  } else if (req.method === 'GET') {
    const params = req.query as Record<string, unknown>;
    request = { query: params.query, operationName: params.operationName, variables: jsonParameter(params.variables), extensions: jsonParameter(params.extensions) };
    const errors = inspectJson(request);
    if (errors.length) throw unprocessable(errors);
  }
  if (typeof request?.query === 'string' && documentNesting(request.query) > MAX_JSON_DEPTH) {
    throw unprocessable([{ pointer: '/query', detail: `nests deeper than ${MAX_JSON_DEPTH} levels` }]);
  }
  return req.method === 'POST' ? request : undefined;
}

/** Reads and checks the request (readRequest); what it refuses is answered in GraphQL's format with the error's status. */
function hygiene(limit: number): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    readRequest(req, res, limit).then(
      (body) => {
        req.body = body;
        next();
      },
      (err: unknown) => {
        if (!isAppError(err)) return next(err);
        res.status(err.status).json({ errors: [{ message: err.message, extensions: err.extensions }] });
      },
    );
  };
}

/** `/graphql`: JSON body, input hygiene, then Apollo with the caller's credentials (HTTP 401 without). */
export function graphqlHttp(options: GraphQLHttpOptions): RequestHandler[] {
  return [
    // A subgraph process receives the facade's operations, which carry REST bodies of up to 5 MB (events).
    hygiene(options.subgraphServer ? 6 * MB : MB),
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
