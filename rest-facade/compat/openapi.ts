import type { TSchema } from '@sinclair/typebox';
import { problemTitle } from '../../platform/problems.js';
import { openApiDocument, type ApiDescription } from '../openapi.js';
import { RouteList } from '../pipeline/routing.js';
import { PAGE_SIZE } from './params.js';
import { registerCompatReportingRoutes } from './reporting.routes.js';
import { registerCompatReturnRoutes } from './returns.routes.js';
import { registerCompatWebhookRoutes } from './webhooks.routes.js';
import { ForbiddenBody, MessageBody, UnauthorizedBody, ValidationBody } from './schemas.js';

const DESCRIPTION = `The warehouse endpoints of Loop Returns' API, for integrations written against it: point them at this
service, change the base URL and the key, and they work unchanged (see docs/compat.md for the mapping and the
deliberate differences). The same returns as the v2.2 API and the GraphQL graph.

**Authentication.** \`X-Authorization: <key>\` (the raw key, no scheme): a compatibility key of one store, created with
the admin CLI or GraphQL. 300 requests a minute per key (429 \`{"message":"Too Many Requests"}\`). As Loop does, every
path under \`/api/v1/\` authenticates first: without a valid key it is 401, and a path outside these endpoints is 403
\`GEN-FORBIDDEN\` with one.

**Webhooks.** Loop's webhook API (\`/webhooks\`): the key's store subscribes URLs to Loop's topics and triggers. Each
delivery is a POST of the return as \`details\` shows it, plus \`topic\` and \`trigger\`, signed with \`X-Loop-Signature\`
(base64 HMAC-SHA256 of the raw body, keyed with the subscription's \`secret\`), in order per return, retried on the
service's schedule; a subscription that keeps failing is disabled (\`status: inactive\`).

**Answers.** Actions answer 200 with \`true\` when applied, and 200 with Loop's refusal body otherwise; unknown returns
answer 200 with an \`errors\` (actions) or \`error\` (details) body. Validation errors are Laravel's 422
\`{"message","errors"}\`. The API is also mounted at \`/api/2026-07\`.`;

const ERROR_HEADERS: Record<number, Record<string, { description: string }>> = {
  429: { 'Retry-After': { description: 'Seconds until the key\'s minute ends.' } },
};

/** The Loop-compatible API as its OpenAPI document describes it (a raw key header, Loop's envelopes, link pagination). */
const COMPAT_API: ApiDescription = {
  info: { title: 'Loop-compatible warehouse API', version: '1.0.0', description: DESCRIPTION },
  basePath: '/api/v1',
  tags: [
    { name: 'Returns', description: 'Read returns and act on them as a warehouse does.' },
    { name: 'Reporting', description: 'The advanced shipping notice.' },
    { name: 'Webhooks', description: "Loop's programmatic webhook API: subscriptions of the key's store, delivered as Loop delivers them." },
  ],
  pathParameters: { return_id: 'The numeric id of the return; any placeholder when a query parameter names the return instead.', id: "The webhook subscription's numeric id." },
  securitySchemes: { compatKey: { type: 'apiKey', in: 'header', name: 'X-Authorization', description: 'A compatibility key of one store (the raw key, no scheme).' } },
  security: () => [{ compatKey: [] }],
  problemStatus(slug, status) {
    // Validation is Laravel's 422.
    return slug === 'validation-failed' ? 422 : status;
  },
  errorResponse(status, slugs, schema) {
    const body: TSchema = status === 401 ? UnauthorizedBody : status === 403 ? ForbiddenBody : status === 422 ? ValidationBody : MessageBody;
    const headers = ERROR_HEADERS[status];
    return {
      description: slugs.map((slug) => problemTitle(slug)).join('; '),
      ...(headers ? { headers: Object.fromEntries(Object.entries(headers).map(([name, h]) => [name, { description: h.description, schema: { type: 'string' } }])) } : {}),
      content: { 'application/json': { schema: status === 422 ? { anyOf: [schema(body), schema(MessageBody)] } : schema(body) } },
    };
  },
  pagination: {
    parameters: [
      {
        name: 'paginate',
        in: 'query',
        description: 'A boolean as PHP reads it (`true`, `1`, `on`, `yes` and their false forms, any case): true wraps the list in `{returns, nextPageUrl, previousPageUrl}`, false gives a bare array. Without it, a request with a `cursor` is paginated.',
        schema: { type: 'string' },
      },
      { name: 'pageSize', in: 'query', description: `Rows per page with \`paginate=true\` (default ${PAGE_SIZE.default}, at most ${PAGE_SIZE.max}).`, schema: { type: 'integer', minimum: PAGE_SIZE.min, maximum: PAGE_SIZE.max, default: PAGE_SIZE.default } },
      {
        name: 'cursor',
        in: 'query',
        description: 'Carried by `nextPageUrl` and `previousPageUrl`: follow those URLs, or send the cursor with your own parameters. It is a position that keeps the window its first page resolved when `from`/`to` are not sent again.',
        schema: { type: 'string' },
      },
    ],
    headers: {},
    problems: { 422: ['validation-failed'] },
  },
};

/** A documented table serves no request, so it has no services. */
const DOCUMENTATION_ONLY = {
  get webhooks(): never {
    throw new Error('a route list that documents the API serves no requests');
  },
};

/** The /api/v1 document, from the same registrations the service serves (no database needed). */
export function compatDocument() {
  const routes = new RouteList();
  registerCompatReturnRoutes(routes);
  registerCompatReportingRoutes(routes);
  registerCompatWebhookRoutes(routes, DOCUMENTATION_ONLY);
  return openApiDocument(routes, COMPAT_API);
}
