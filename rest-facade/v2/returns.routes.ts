import { invalid, notFound } from '../../platform/errors.js';
import { CommentBodySchema, CreateReturnSchema, OrderBodySchema, ReturnListQuerySchema, StatusBodySchema } from '../../subgraphs/returns/public.js';
import { operation } from '../gateway-client.js';
import type { RouteTable } from '../pipeline/routing.js';

const BODY_LIMIT = 1024 * 1024;

// The returns subgraph serves each return and order as its REST JSON text (`restJson`), the same
// document its webhooks carry: these routes splice that text into the response, mapping nothing.
const UPSERT_ORDER = operation(`
  mutation UpsertOrder($storeId: ID!, $input: JSON!) { upsertOrder(storeId: $storeId, input: $input) { restJson } }`);

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

const LIST_COMMENTS = operation(`
  query ReturnComments($id: ID!) { return(id: $id) { comments { id message createdAt } } }`);

const ADD_COMMENT = operation(`
  mutation AddReturnComment($id: ID!, $message: String!) { addReturnComment(returnId: $id, message: $message) { id message createdAt } }`);

type Shaped = { restJson: string };

function returnNotFound(id: string) {
  return notFound('return-not-found', `Return ${id} was not found.`);
}

export function registerReturnRoutes(routes: RouteTable): void {
  routes.add('POST', '/stores/:storeId/custom/orders', {
    summary: 'Create or update an order by its external id',
    scope: 'orders_write',
    // Checked here against the REST body (which has no provider), and again by upsertOrder for GraphQL callers.
    body: { limit: BODY_LIMIT, schema: OrderBodySchema },
    handle: async ({ params, body, graphql }) => {
      // Orders pushed here are the store's own ("custom" provider).
      const data = await graphql<{ upsertOrder: Shaped }>(UPSERT_ORDER, { storeId: params.storeId, input: { ...body, provider: 'custom' } });
      return { status: 200, json: `{"order":${data.upsertOrder.restJson}}` };
    },
  });

  routes.add('POST', '/stores/:storeId/returns', {
    summary: 'Create a return for order line items',
    scope: 'returns_write',
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

  routes.add('GET', '/returns/:returnId', {
    summary: 'A return with its order',
    scope: 'returns_read',
    handle: async ({ params, graphql }) => {
      const data = await graphql<{ return: (Shaped & { order: Shaped }) | null }>(GET_RETURN, { id: params.returnId });
      if (!data.return) throw returnNotFound(params.returnId!);
      return { status: 200, json: `{"return":${data.return.restJson},"order":${data.return.order.restJson}}` };
    },
  });

  routes.add('GET', '/stores/:storeId/returns', {
    summary: "A store's returns, most recently updated first",
    scope: 'returns_read',
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
    summary: 'Move a return to complete, open, flagged, rejected or deleted',
    scope: 'returns_write',
    body: { limit: BODY_LIMIT, schema: StatusBodySchema },
    handle: async ({ params, body, graphql }) => {
      await graphql(UPDATE_STATUS, { id: params.returnId, status: body.status });
      return { status: 204 };
    },
  });

  routes.add('GET', '/returns/:returnId/comments', {
    summary: "A return's comments, oldest first",
    scope: 'returns_read',
    handle: async ({ params, graphql }) => {
      const data = await graphql<{ return: { comments: unknown[] } | null }>(LIST_COMMENTS, { id: params.returnId });
      if (!data.return) throw returnNotFound(params.returnId!);
      return { status: 200, body: { comments: data.return.comments } };
    },
  });

  routes.add('POST', '/returns/:returnId/comments', {
    summary: 'Add a comment to a return',
    scope: 'returns_write',
    body: { limit: BODY_LIMIT, schema: CommentBodySchema },
    handle: async ({ params, body, graphql }) => {
      const data = await graphql<{ addReturnComment: unknown }>(ADD_COMMENT, { id: params.returnId, message: body.comment.message });
      return { status: 201, body: { comment: data.addReturnComment } };
    },
  });
}
