import { invalid, notFound } from '../../platform/errors.js';
import { OneOf, Strict, Type, violationsOf } from '../../platform/validation/index.js';
import {
  BulkReturnsResultSchema,
  BulkReturnsSchema,
  CommentBodySchema,
  CreateReturnSchema,
  isOrderSync,
  OrderBodySchema,
  OrderSyncSchema,
  ProcessBodySchema,
  RETURN_STATUSES,
  RestCommentSchema,
  RestOrderSchema,
  RestReturnListSchema,
  RestReturnSchema,
  ReturnListQuerySchema,
  StatusBodySchema,
} from '../../subgraphs/returns/public.js';
import { operation } from '../gateway-client.js';
import type { RouteRegistry } from '../pipeline/routing.js';

const BODY_LIMIT = 1024 * 1024;
/** A comment may carry a picture (base64). */
const IMAGE_BODY_LIMIT = 6 * 1024 * 1024;

// The returns subgraph serves each return and order as its REST JSON text (`restJson`), the same
// document its webhooks carry: these routes splice that text into the response, mapping nothing.
const UPSERT_ORDER = operation(`
  mutation UpsertOrder($storeId: ID!, $input: JSON!) { upsertOrder(storeId: $storeId, input: $input) { id restJson } }`);

const CREATE_RETURN = operation(`
  mutation CreateReturn($storeId: ID!, $input: JSON!, $key: String) {
    createReturn(storeId: $storeId, input: $input, idempotencyKey: $key) {
      replayed
      return { restJson }
      externalRMAResponses { integrationProvider success errorCode errorMessage }
    }
  }`);

const GET_RETURN = operation(`
  query GetReturn($id: ID!) { return(id: $id) { restJson order { restJson } } }`);

const LIST_RETURNS = operation(`
  query ListReturns($storeId: ID!, $first: Int, $after: String, $filter: ReturnFilterInput) {
    returns(storeId: $storeId, first: $first, after: $after, filter: $filter) {
      restJson
      pageInfo { hasNextPage endCursor }
    }
  }`);

const UPDATE_STATUS = operation(`
  mutation UpdateReturnStatus($id: ID!, $status: ReturnStatus!) { updateReturnStatus(returnId: $id, status: $status) { id } }`);

const GET_STATUS = operation(`
  query ReturnStatus($id: ID!) { return(id: $id) { status } }`);

const PROCESS_RETURN = operation(`
  mutation ProcessReturn($id: ID!, $input: JSON!) { processReturn(returnId: $id, input: $input) { id } }`);

const IMPORT_RETURNS = operation(`
  mutation ImportReturns($storeId: ID!, $input: JSON!) { importReturns(storeId: $storeId, input: $input) { restJson } }`);

const LIST_COMMENTS = operation(`
  query ReturnComments($id: ID!) { return(id: $id) { comments { id message image createdAt } } }`);

const ADD_COMMENT = operation(`
  mutation AddReturnComment($id: ID!, $message: String, $image: String) { addReturnComment(returnId: $id, message: $message, image: $image) { id message image createdAt } }`);

/** A comment as REST shows it: `image` only when it carries one. */
type CommentOut = { id: string; message: string; image: string | null; createdAt: string };
const restComment = ({ image, ...comment }: CommentOut) => (image === null ? comment : { ...comment, image });

type Shaped = { restJson: string };

// The envelopes these routes put around the subgraph's documents.
const OrderResponse = Strict({ order: RestOrderSchema });
const OrderSyncResponse = Strict(
  { message: Type.String(), orderId: Type.String({ description: 'The external id sent.' }), redoId: Type.String({ description: "The service's order id." }) },
  { title: 'OrderSyncResponse', description: 'The answer to the order-sync body (type: "order").' },
);
const CreatedReturnResponse = Strict({
  return: RestReturnSchema,
  externalRMAResponses: Type.Array(
    Strict({ integrationProvider: Type.String(), success: Type.Boolean(), errorCode: Type.Union([Type.String(), Type.Null()]), errorMessage: Type.Union([Type.String(), Type.Null()]) }),
    { description: 'One result per configured RMA integration when options.createExternalRMAs is true (none is configured: always empty).' },
  ),
});
const ReturnWithOrder = Strict({ return: RestReturnSchema, order: RestOrderSchema });
const CommentList = Strict({ comments: Type.Array(RestCommentSchema) });
const CommentResponse = Strict({ comment: RestCommentSchema });
const StatusResponse = Strict({ status: OneOf(RETURN_STATUSES) });
const ProcessResponse = Strict({ message: Type.String() });
const TAG = 'Returns';

function returnNotFound(id: string) {
  return notFound('return-not-found', `Return ${id} was not found.`);
}

export function registerReturnRoutes(routes: RouteRegistry): void {
  routes.add('POST', '/stores/:storeId/custom/orders', {
    operationId: 'upsertOrder',
    tag: 'Orders',
    summary: 'Create or update an order by its external id',
    description:
      'Takes the contract\'s order body (answered with `{order}`) or the real platform\'s order-sync body (`type: "order"`, answered with `{message, orderId, redoId}`); both become the same order. The same `id` again updates the order. Lines that returns hold must stay, with at least the returned quantity.',
    scope: 'orders_write',
    responses: { 200: { description: 'The order as stored (created or updated): `{order}`, or `{message, orderId, redoId}` for the order-sync body.', schema: Type.Union([OrderResponse, OrderSyncResponse]) } },
    problems: { 409: ['order-line-has-returns'] },
    // Either body, told apart by `type` and checked by the handler against the one it is (a union would blur the pointers).
    body: { limit: BODY_LIMIT, schema: Type.Union([OrderBodySchema, OrderSyncSchema], { description: 'The contract\'s order body, or the order-sync body (type: "order").' }), checkedBy: 'graph' },
    handle: async ({ params, body, graphql }) => {
      // The REST bodies carry no provider: orders pushed here are the store's own ("custom").
      const errors = violationsOf(isOrderSync(body) ? OrderSyncSchema : OrderBodySchema, body);
      if (errors.length) throw invalid('validation-failed', 'The body is invalid.', errors);
      const data = await graphql<{ upsertOrder: Shaped & { id: string } }>(UPSERT_ORDER, { storeId: params.storeId, input: { ...(body as object), provider: 'custom' } });
      if (isOrderSync(body)) return { status: 200, body: { message: 'Order synced.', orderId: (body as { id: string }).id, redoId: data.upsertOrder.id } };
      return { status: 200, json: `{"order":${data.upsertOrder.restJson}}` };
    },
  });

  routes.add('POST', '/stores/:storeId/returns', {
    operationId: 'createReturn',
    tag: TAG,
    summary: 'Create a return for order line items',
    description: 'Items name the order lines by their external id (`lineItems[].id` of the order). A quantity above what is still returnable is 409.',
    scope: 'returns_write',
    headers: {
      'Idempotency-Key': {
        description: 'Makes retries safe (1 to 255 characters, per store, kept 24 h): the same key and body again answers 200 with the same return.',
        schema: Type.String({ minLength: 1, maxLength: 255 }),
      },
    },
    responses: {
      201: { description: 'The return was created.', schema: CreatedReturnResponse },
      200: { description: 'A replay of an earlier request with the same Idempotency-Key: the return in its current state.', schema: CreatedReturnResponse },
    },
    problems: { 404: ['order-not-found'], 409: ['quantity-not-returnable', 'idempotency-key-in-progress'], 422: ['idempotency-key-reused'] },
    body: { limit: BODY_LIMIT, schema: CreateReturnSchema, checkedBy: 'graph' },
    handle: async ({ req, params, body, graphql }) => {
      const key = req.headers['idempotency-key'];
      if (Array.isArray(key)) throw invalid('validation-failed', 'Send one Idempotency-Key.', [{ pointer: 'header#idempotency-key', detail: 'must be given once' }]);
      const data = await graphql<{ createReturn: { replayed: boolean; return: Shaped; externalRMAResponses: unknown[] } }>(CREATE_RETURN, {
        storeId: params.storeId,
        input: body,
        key: key ?? null,
      });
      const { replayed, return: ret, externalRMAResponses } = data.createReturn;
      return { status: replayed ? 200 : 201, json: `{"return":${ret.restJson},"externalRMAResponses":${JSON.stringify(externalRMAResponses)}}` };
    },
  });

  routes.add('POST', '/stores/:storeId/returns/bulk', {
    operationId: 'importReturns',
    tag: TAG,
    summary: 'Import returns made in another system (up to 100)',
    description:
      "Returns from a warehouse, an ERP or another returns platform, naming this service's products (`prd_...`) and no order: each gets an order of its own (not counted as ordered, not in the orders API). They keep their status, dates and reference as given (no transition is walked, nothing is restocked, no event is published unless `options.webhooks`); the same `externalReferenceId` (else `idempotencyKey`) again answers the return made the first time. The batch is written in one transaction; each invalid return is an `error` result and the others are created.",
    scope: 'returns_write',
    responses: { 200: { description: 'One result per return, in the order of the request.', schema: BulkReturnsResultSchema } },
    body: { limit: 5 * BODY_LIMIT, schema: BulkReturnsSchema, checkedBy: 'graph' },
    handle: async ({ params, body, graphql }) => {
      const data = await graphql<{ importReturns: { restJson: string } }>(IMPORT_RETURNS, { storeId: params.storeId, input: body });
      return { status: 200, json: data.importReturns.restJson };
    },
  });

  routes.add('GET', '/returns/:returnId', {
    operationId: 'getReturn',
    tag: TAG,
    summary: 'A return with its order',
    scope: 'returns_read',
    responses: { 200: { description: 'The return and its order.', schema: ReturnWithOrder } },
    problems: { 404: ['return-not-found'] },
    handle: async ({ params, graphql }) => {
      const data = await graphql<{ return: (Shaped & { order: Shaped }) | null }>(GET_RETURN, { id: params.returnId });
      if (!data.return) throw returnNotFound(params.returnId!);
      return { status: 200, json: `{"return":${data.return.restJson},"order":${data.return.order.restJson}}` };
    },
  });

  routes.add('GET', '/stores/:storeId/returns', {
    operationId: 'listReturns',
    tag: TAG,
    summary: "A store's returns, most recently updated first",
    description: 'One page of returns (sorted by `updatedAt`, then id) with the orders they belong to.',
    scope: 'returns_read',
    responses: { 200: { description: 'A page of returns.', schema: RestReturnListSchema } },
    paginated: true,
    query: ReturnListQuerySchema,
    handle: async ({ params, page, query, graphql }) => {
      if (query.provider_order_name !== undefined && query.shopify_order_name !== undefined && query.provider_order_name !== query.shopify_order_name) {
        throw invalid('validation-failed', 'provider_order_name and its alias shopify_order_name disagree.', [{ pointer: 'query#shopify_order_name', detail: 'must equal provider_order_name' }]);
      }
      const filter = {
        status: query.status,
        type: query.type,
        updatedAtMin: query.updated_at_min,
        updatedAtMax: query.updated_at_max,
        createdAtMin: query.created_at_min,
        createdAtMax: query.created_at_max,
        providerOrderName: query.provider_order_name ?? query.shopify_order_name,
        email: query.email,
      };
      const data = await graphql<{ returns: Shaped & { pageInfo: { hasNextPage: boolean; endCursor: string | null } } }>(LIST_RETURNS, {
        storeId: params.storeId,
        first: page.first,
        after: page.after,
        filter,
      });
      return { status: 200, json: data.returns.restJson, page: data.returns.pageInfo };
    },
  });

  routes.add('PUT', '/returns/:returnId/status', {
    operationId: 'updateReturnStatus',
    tag: TAG,
    summary: 'Move a return to complete, open, flagged, rejected or deleted',
    description: 'A transition the status table forbids (e.g. complete -> flagged) is 409. `deleted` resets the return: its items become returnable again.',
    scope: 'returns_write',
    responses: { 204: { description: 'The status changed.' } },
    problems: { 404: ['return-not-found'], 409: ['invalid-transition'] },
    body: { limit: BODY_LIMIT, schema: StatusBodySchema },
    handle: async ({ params, body, graphql }) => {
      await graphql(UPDATE_STATUS, { id: params.returnId, status: body.status });
      return { status: 204 };
    },
  });

  routes.add('GET', '/returns/:returnId/comments', {
    operationId: 'listReturnComments',
    tag: TAG,
    summary: "A return's comments, oldest first",
    scope: 'returns_read',
    responses: { 200: { description: 'The comments.', schema: CommentList } },
    problems: { 404: ['return-not-found'] },
    handle: async ({ params, graphql }) => {
      const data = await graphql<{ return: { comments: CommentOut[] } | null }>(LIST_COMMENTS, { id: params.returnId });
      if (!data.return) throw returnNotFound(params.returnId!);
      return { status: 200, body: { comments: data.return.comments.map(restComment) } };
    },
  });

  routes.add('POST', '/returns/:returnId/comments', {
    operationId: 'addReturnComment',
    tag: TAG,
    summary: 'Add a comment to a return',
    description: 'A `{message}` or an `{image}` (base64). Comments also appear in the return\'s `notes`.',
    scope: 'returns_write',
    responses: { 201: { description: 'The comment was added.', schema: CommentResponse } },
    problems: { 404: ['return-not-found'] },
    body: { limit: IMAGE_BODY_LIMIT, schema: CommentBodySchema },
    handle: async ({ params, body, graphql }) => {
      const content = body.comment;
      const data = await graphql<{ addReturnComment: CommentOut }>(ADD_COMMENT, {
        id: params.returnId,
        message: 'message' in content ? content.message : null,
        image: 'image' in content ? content.image : null,
      });
      return { status: 201, body: { comment: restComment(data.addReturnComment) } };
    },
  });

  routes.add('GET', '/returns/:returnId/status', {
    operationId: 'getReturnStatus',
    tag: TAG,
    summary: "A return's status",
    scope: 'returns_read',
    responses: { 200: { description: 'The status.', schema: StatusResponse } },
    problems: { 404: ['return-not-found'] },
    handle: async ({ params, graphql }) => {
      const data = await graphql<{ return: { status: string } | null }>(GET_STATUS, { id: params.returnId });
      if (!data.return) throw returnNotFound(params.returnId!);
      return { status: 200, body: { status: data.return.status } };
    },
  });

  routes.add('POST', '/returns/:returnId/process', {
    operationId: 'processReturn',
    tag: TAG,
    summary: 'Process a return: queue its completion',
    description:
      "The same completion as the compatibility API's process: the return becomes `complete` (restock, webhooks) once the queued job ran, normally well under a second. Items named with `reject: true` get the outcome `rejected`; the body is kept on the return's timeline. A return whose status cannot move to complete is 409.",
    scope: 'returns_write',
    responses: { 200: { description: 'The completion is queued.', schema: ProcessResponse } },
    problems: { 400: ['items-not-in-return'], 404: ['return-not-found'], 409: ['invalid-transition'] },
    body: { limit: BODY_LIMIT, schema: ProcessBodySchema },
    handle: async ({ params, body, graphql }) => {
      await graphql(PROCESS_RETURN, { id: params.returnId, input: body });
      return { status: 200, body: { message: 'Return processing queued.' } };
    },
  });
}
