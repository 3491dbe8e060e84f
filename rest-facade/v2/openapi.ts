import { SCOPES } from '../../platform/api/auth.js';
import { PAGE_SIZE } from '../../platform/api/pagination.js';
import { problemTitle } from '../../platform/problems.js';
import { webhookDeliveries } from '../../webhooks/public.js';
import { openApiDocument, type ApiDescription } from '../openapi.js';
import type { HeaderSpec } from '../pipeline/route.js';
import { RouteList } from '../pipeline/routing.js';
import { registerV2Routes, type V2Services } from './index.js';
import { headerPagination, IGNORED_PARAMETERS, ProblemSchema, RATE_LIMIT_HEADERS } from './surface.js';

/** Headers that come with an error of a given status. */
const ERROR_HEADERS: Record<number, Record<string, HeaderSpec>> = {
  401: { 'WWW-Authenticate': { description: '`Bearer realm="v2.2"` (with `error="invalid_token"` for an unknown or revoked secret).' } },
  429: { 'Retry-After': { description: 'Seconds to wait before retrying.' }, ...RATE_LIMIT_HEADERS },
  503: { 'Retry-After': { description: 'Seconds to wait before retrying.' } },
};

/** Sent with any answer once the query was read, when the request carried parameters the route does not take. */
const IGNORED_HEADER: Record<string, HeaderSpec> = {
  [IGNORED_PARAMETERS]: { description: 'The query parameters this operation ignored (it does not take them), percent-encoded and comma-separated: a misspelt filter shows here.' },
};

const [pageSizeName, pageContinueName] = headerPagination.params as [string, string];

const DESCRIPTION = `Returns, custom events, inbound shipments and inventory items of a merchant's stores.

**Authentication.** Every call sends \`Authorization: Bearer <API secret>\`. A secret belongs to an account and
acts on its stores; each operation names the scope it needs (a new secret has every scope). A store or return of
another account answers 404, as an unknown one does.

**Errors** are RFC 9457 problem details (\`application/problem+json\`): \`type\` is \`/problems/<slug>\`, a page of
this service that explains the problem; validation problems list every violation in \`errors\` with a pointer.
Each response carries \`X-Request-Id\` (the caller's, when it sends a sane one).

**Pagination.** Lists return ${PAGE_SIZE.default} rows by default (\`${pageSizeName}\` or \`X-Page-Size\`, ${PAGE_SIZE.min} to ${PAGE_SIZE.max}).
When more rows exist the response carries \`X-Page-Next\`: pass it back as \`${pageContinueName}\` (or \`X-Page-Continue\`),
exactly as received and with the same filters, to read the next page.

**Unknown query parameters** are ignored, as the real platform ignores them; the answer names them in
\`${IGNORED_PARAMETERS}\`, so a misspelt filter is visible. A known parameter with an invalid value is 400.

**Rate limits.** Event creation: 100 requests per second per store by default (429 with \`Retry-After\`); every other
route has a generous limit per secret.

**GraphQL.** The same data and the write operations of internal tools are in the GraphQL graph at \`/graphql\`.`;

const RETRY_AFTER: Record<string, HeaderSpec> = { 'Retry-After': { description: 'Seconds, or an HTTP date: the next attempt waits at least that long (a day at most).' } };

const WEBHOOK_DESCRIPTION = `POSTed to the subscription's callback URL, with \`Authorization: Bearer <token>\` when its callback has one,
and signed (Standard Webhooks): verify \`webhook-signature\` over the exact bytes received. The documents are the REST
documents as they were when the change committed. For one subscription, the events of one subject (for custom events,
the customer) arrive one at a time in commit order; delivery is at least once, so deduplicate on \`webhook-id\`.`;

/** The /v2.2 API as its OpenAPI document describes it (problem details, bearer secrets with scopes, header pagination). */
const V2_API: ApiDescription = {
  info: { title: 'Returns platform REST API', version: '2.2.1', description: DESCRIPTION },
  basePath: '/v2.2',
  tags: [
    { name: 'Orders', description: 'Orders come in first: returns are made against their line items.' },
    { name: 'Returns', description: 'Returns of order line items, their status and comments.' },
    { name: 'Custom events', description: 'Events about customers, queued for processing (segments, flows).' },
    { name: 'Webhooks', description: 'Subscriptions: every change of a return, shipment, item or custom event POSTed to your URL, signed (Standard Webhooks), in order per subject, retried, with a delivery log.' },
    { name: 'Inventory', description: 'Inbound shipments and in-stock inventory items (writes are GraphQL mutations).' },
    { name: 'Privacy', description: "Customers' data on request: erase a customer everywhere, export what is held, and how long records are kept." },
  ],
  pathParameters: {
    storeId: 'A store of the caller\'s account (`sto_...`).',
    returnId: 'A return id (`ret_...`).',
    webhookId: 'A webhook subscription id (`whk_...`).',
    erasureId: 'An erasure request id (`era_...`).',
    id: 'The resource id.',
  },
  securitySchemes: {
    apiSecret: {
      type: 'http',
      scheme: 'bearer',
      description: `An API secret of the account (\`sk_...\`). Scopes: ${SCOPES.map((s) => `\`${s}\``).join(', ')}; each operation lists the one it needs.`,
    },
  },
  security: (scope) => [{ apiSecret: [scope] }],
  commonHeaders: {
    'X-Request-Id': { description: 'The request id (echoed from the request when it sends one of 1 to 200 characters of `[A-Za-z0-9_.:-]`).' },
    ...IGNORED_HEADER,
  },
  errorResponse(status, slugs, schema) {
    return {
      description: slugs.map((slug) => problemTitle(slug)).join('; '),
      headers: Object.fromEntries(
        Object.entries({ 'X-Request-Id': { description: 'The request id.' }, ...IGNORED_HEADER, ...ERROR_HEADERS[status] }).map(([name, h]) => [name, { description: h.description, schema: { type: 'string' } }]),
      ),
      content: {
        'application/problem+json': {
          schema: {
            allOf: [
              schema(ProblemSchema),
              { type: 'object', properties: { type: { enum: slugs.map((slug) => `/problems/${slug}`) }, status: { const: status } } },
            ],
          },
        },
      },
    };
  },
  pagination: {
    parameters: [
      { name: pageSizeName, in: 'query', description: `Rows per page (default ${PAGE_SIZE.default}); wins over X-Page-Size.`, schema: { type: 'integer', minimum: PAGE_SIZE.min, maximum: PAGE_SIZE.max, default: PAGE_SIZE.default } },
      { name: pageContinueName, in: 'query', description: 'The `X-Page-Next` of the previous page, exactly as received; wins over X-Page-Continue.', schema: { type: 'string' } },
      { name: 'X-Page-Size', in: 'header', description: `The header form of \`${pageSizeName}\`.`, schema: { type: 'integer', minimum: PAGE_SIZE.min, maximum: PAGE_SIZE.max } },
      { name: 'X-Page-Continue', in: 'header', description: `The header form of \`${pageContinueName}\`.`, schema: { type: 'string' } },
    ],
    headers: { 'X-Page-Next': { description: `The cursor of the next page (pass it as \`${pageContinueName}\`); absent on the last page.` } },
    problems: { 400: ['invalid-page-size', 'invalid-cursor'] },
  },
  webhooks: {
    tag: 'Webhooks',
    description: WEBHOOK_DESCRIPTION,
    headers: {
      'webhook-id': { required: true, description: 'The message id (`msg_...`), the same on every attempt of this event.' },
      'webhook-timestamp': { required: true, description: 'Unix seconds of this attempt.' },
      'webhook-signature': {
        required: true,
        description: '`v1,` then the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the base64-decoded part of the `signingSecret` after `whsec_`.',
      },
    },
    responses: {
      '2XX': { description: 'Received (within the timeout, 10 s by default): the subject\'s next event follows.' },
      '410': { description: 'Gone: the subscription is disabled; its events wait, in order, until a PUT re-enables it (3 days at most).' },
      '429': { description: 'A failed attempt, retried no sooner than `Retry-After` says.', headers: RETRY_AFTER },
      '503': { description: 'A failed attempt, retried no sooner than `Retry-After` says.', headers: RETRY_AFTER },
      default: { description: 'A failed attempt (a redirect, an error, no answer in time): retried on the schedule, then discarded.' },
    },
    deliveries: webhookDeliveries(),
  },
};

/** A documented table serves no request, so it has no services; a handler that ran anyway would say so. */
const DOCUMENTATION_ONLY: V2Services = {
  get events(): never {
    throw new Error('a route list that documents the API serves no requests');
  },
  get webhooks(): never {
    throw new Error('a route list that documents the API serves no requests');
  },
};

/** The /v2.2 document, from the same registrations the service serves (no database needed). */
export function v2Document() {
  const routes = new RouteList();
  registerV2Routes(routes, DOCUMENTATION_ONLY);
  return openApiDocument(routes, V2_API);
}
