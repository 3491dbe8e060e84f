import { notFound } from '../../platform/errors.js';
import {
  ErasureBodySchema,
  ErasureResponseSchema,
  ExportBodySchema,
  oneIdentifier,
  RetentionBodySchema,
  RetentionResponseSchema,
  type ErasureDocument,
  type RetentionDocument,
} from '../../platform/privacy/privacy.schemas.js';
import type { CustomerIdentifier } from '../../platform/privacy/subject.js';
import { DateTime, OrNull, Strict, Type } from '../../platform/validation/index.js';
import { ConsentChangeDocumentSchema, ConsentDocumentSchema, CustomEventDocumentSchema, CustomerDocumentSchema, FlowRunDocumentSchema, MessageDocumentSchema } from '../../subgraphs/events/public.js';
import { RestOrderSchema, RestReturnSchema } from '../../subgraphs/returns/public.js';
import { operation } from '../gateway-client.js';
import type { RouteContext } from '../pipeline/route.js';
import type { RouteRegistry } from '../pipeline/routing.js';

const TAG = 'Privacy';
const BODY_LIMIT = 16 * 1024;

const ERASURE_FIELDS = 'id storeId status requestedBy suppression customerIds counts { kind action count } requestedAt completedAt';

const ERASE = operation(`
  mutation EraseCustomer($storeId: ID!, $by: CustomerIdentifierInput!, $suppression: SuppressionMode!) {
    eraseCustomer(storeId: $storeId, by: $by, suppression: $suppression) { ${ERASURE_FIELDS} }
  }`);

const ERASURE = operation(`
  query ErasureRequest($id: ID!) { erasureRequest(id: $id) { ${ERASURE_FIELDS} } }`);

const RETENTION_FIELDS = 'customEventDays messageDays flowRunDays webhookLogDays';
const GET_RETENTION = operation(`query DataRetention($storeId: ID!) { dataRetention(storeId: $storeId) { ${RETENTION_FIELDS} } }`);
const UPDATE_RETENTION = operation(`
  mutation UpdateDataRetention($storeId: ID!, $input: DataRetentionInput!) { updateDataRetention(storeId: $storeId, input: $input) { ${RETENTION_FIELDS} } }`);

const EXPORT_HEAD = operation(`
  query ExportCustomer($storeId: ID!, $by: CustomerIdentifierInput!) {
    customerExport(storeId: $storeId, by: $by) { customerId email phoneNumber customer { restJson } consentJson }
  }`);

/** The lists of an export in document order, each read a page at a time through its own operation. */
const EXPORT_PARTS = (['consentChanges', 'events', 'mentions', 'flowRuns', 'messages', 'orders', 'returns'] as const).map((part) => ({
  part,
  op: operation(`
    query Export_${part}($storeId: ID!, $by: CustomerIdentifierInput!, $after: String) {
      customerExport(storeId: $storeId, by: $by) { ${part}(first: 500, after: $after) { edges { node { restJson } } pageInfo { hasNextPage endCursor } } }
    }`),
}));

type Page = { edges: { node: { restJson: string } }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };

const CustomerExportSchema = Strict(
  {
    storeId: Type.String(),
    exportedAt: DateTime({ description: 'When the export started; the lists are read page by page after it.' }),
    identifiers: Strict(
      { customerId: OrNull(Type.String()), email: OrNull(Type.String()), phoneNumber: OrNull(Type.String()) },
      { description: "What the export covers: the profile's identifiers, else the one asked for. Orders and returns are matched by the email and phone number." },
    ),
    customer: OrNull(CustomerDocumentSchema),
    consent: Type.Array(ConsentDocumentSchema, { description: 'Consent per channel and kind (empty without a profile).' }),
    consentChanges: Type.Array(ConsentChangeDocumentSchema, { description: 'Every change of the consent, newest first: who, when, how.' }),
    events: Type.Array(CustomEventDocumentSchema, { description: 'Newest first.' }),
    mentions: Type.Array(CustomEventDocumentSchema, { description: "Other customers' events whose properties mention the email or phone number." }),
    flowRuns: Type.Array(FlowRunDocumentSchema),
    messages: Type.Array(MessageDocumentSchema),
    orders: Type.Array(RestOrderSchema),
    returns: Type.Array(RestReturnSchema),
  },
  { title: 'CustomerExport' },
);

/** The REST body names the customer id `customerId`; the graph's `by` calls it `id`. */
const byOf = (id: CustomerIdentifier) => ({ id: id.customerId, email: id.email, phoneNumber: id.phoneNumber });

/**
 * The export as one JSON document, written as it is read: the profile first, then each list a
 * page (500) at a time, so a customer with a long history never sits in memory whole.
 */
async function* exportDocument(graphql: RouteContext<unknown, unknown>['graphql'], storeId: string, by: ReturnType<typeof byOf>, head: ExportHead): AsyncIterable<string> {
  const identifiers = { customerId: head.customerId, email: head.email, phoneNumber: head.phoneNumber };
  yield `{"storeId":${JSON.stringify(storeId)},"exportedAt":${JSON.stringify(new Date().toISOString())},"identifiers":${JSON.stringify(identifiers)},"customer":${head.customer?.restJson ?? 'null'},"consent":${head.consentJson}`;
  for (const { part, op } of EXPORT_PARTS) {
    yield `,"${part}":[`;
    let after: string | null = null;
    let first = true;
    do {
      const page: Page = (await graphql<{ customerExport: Record<string, Page> }>(op, { storeId, by, after })).customerExport[part]!;
      const documents = page.edges.map((e) => e.node.restJson).join(',');
      if (documents) yield `${first ? '' : ','}${documents}`;
      first &&= !documents;
      after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
    } while (after);
    yield ']';
  }
  yield '}';
}

interface ExportHead {
  customerId: string | null;
  email: string | null;
  phoneNumber: string | null;
  customer: { restJson: string } | null;
  consentJson: string;
}

/**
 * Data subject requests (docs/privacy.md): erasure (queued, then polled), export (streamed), and
 * the store's retention setting. Each runs through the graph like every route but event creation.
 */
export function registerPrivacyRoutes(routes: RouteRegistry): void {
  routes.add('POST', '/stores/:storeId/customers/erasure', {
    operationId: 'eraseCustomer',
    tag: TAG,
    summary: 'Erase a customer from every record of the store (202 with the request to poll)',
    description:
      'Removes the profile, its events, uniqueId claims, flow runs and messages; anonymises the orders and returns (they stay, without the person); scrubs queued jobs and webhook messages; keeps a keyed hash of each identifier so later events are dropped (`DROP`) or refused (`REFUSE`). One `customer.erased` webhook follows. Idempotent: erasing again is harmless.',
    scope: 'privacy_write',
    body: { limit: BODY_LIMIT, schema: ErasureBodySchema },
    responses: { 202: { description: 'Queued; poll the Location.', schema: ErasureResponseSchema, headers: { Location: { description: 'The status of the request.' } } } },
    handle: async ({ params, body, graphql }) => {
      const by = byOf(oneIdentifier(body, ''));
      const data = await graphql<{ eraseCustomer: ErasureDocument }>(ERASE, { storeId: params.storeId, by, suppression: body.suppression ?? 'DROP' });
      const erasure = data.eraseCustomer;
      return { status: 202, body: { erasure }, headers: { Location: `/v2.2/stores/${erasure.storeId}/customers/erasure/${erasure.id}` } };
    },
  });

  routes.add('GET', '/stores/:storeId/customers/erasure/:erasureId', {
    operationId: 'getErasure',
    tag: TAG,
    summary: 'An erasure request: its status and what it removed, per kind of record',
    scope: 'privacy_read',
    responses: { 200: { description: 'The request (the identifier it named is not kept).', schema: ErasureResponseSchema } },
    problems: { 404: ['erasure-not-found'] },
    handle: async ({ params, graphql }) => {
      const erasure = (await graphql<{ erasureRequest: ErasureDocument | null }>(ERASURE, { id: params.erasureId })).erasureRequest;
      if (!erasure || erasure.storeId !== params.storeId) throw notFound('erasure-not-found', `No erasure request ${params.erasureId} in this store.`);
      return { status: 200, body: { erasure } };
    },
  });

  routes.add('POST', '/stores/:storeId/customers/export', {
    operationId: 'exportCustomer',
    tag: TAG,
    summary: 'Everything the store holds about one customer, as one JSON document (an access request)',
    description:
      'The profile, events, flow runs, messages, orders and returns, streamed as they are read (large histories included). A POST so the identifier stays out of URLs and access logs. An unknown customer answers an empty document.',
    scope: 'privacy_read',
    body: { limit: BODY_LIMIT, schema: ExportBodySchema },
    responses: { 200: { description: 'The document, streamed.', schema: CustomerExportSchema } },
    handle: async ({ params, body, graphql }) => {
      const by = byOf(oneIdentifier(body, ''));
      const storeId = params.storeId!;
      // Read before the first byte: a refusal still gets its problem answer.
      const head = (await graphql<{ customerExport: ExportHead }>(EXPORT_HEAD, { storeId, by })).customerExport;
      return { status: 200, stream: exportDocument(graphql, storeId, by, head) };
    },
  });

  routes.add('GET', '/stores/:storeId/data-retention', {
    operationId: 'getDataRetention',
    tag: TAG,
    summary: 'How long the store keeps each kind of record',
    scope: 'privacy_read',
    responses: { 200: { description: 'Days per kind of record (null: until erased).', schema: RetentionResponseSchema } },
    handle: async ({ params, graphql }) => {
      const data = await graphql<{ dataRetention: RetentionDocument }>(GET_RETENTION, { storeId: params.storeId });
      return { status: 200, body: { retention: data.dataRetention } };
    },
  });

  routes.add('PUT', '/stores/:storeId/data-retention', {
    operationId: 'updateDataRetention',
    tag: TAG,
    summary: 'Change how long the store keeps each kind of record',
    description: 'A scheduled job removes, in small batches, what is past it. Given values replace the stored ones; omitted ones stay.',
    scope: 'privacy_write',
    body: { limit: BODY_LIMIT, schema: RetentionBodySchema },
    responses: { 200: { description: 'The setting now.', schema: RetentionResponseSchema } },
    handle: async ({ params, body, graphql }) => {
      const data = await graphql<{ updateDataRetention: RetentionDocument }>(UPDATE_RETENTION, { storeId: params.storeId, input: body.retention });
      return { status: 200, body: { retention: data.updateDataRetention } };
    },
  });
}
