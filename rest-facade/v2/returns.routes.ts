import { invalid, notFound } from '../../platform/errors.js';
import { isObject } from '../../platform/validation.js';
import { operation } from '../gateway-client.js';
import type { RouteTable } from '../routing.js';
import { pageHeaders, v2Route, type V2Deps } from './route.js';

const BODY_LIMIT = { limit: 1024 * 1024 };
const REST_STATUS_TARGETS = ['complete', 'open', 'flagged', 'rejected', 'deleted'];

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


export function registerReturnRoutes(routes: RouteTable, deps: V2Deps): void {
  routes.add(
    'POST',
    '/stores/:storeId/custom/orders',
    v2Route(deps, {
      scope: 'orders_write',
      body: BODY_LIMIT,
      handle: async ({ params, body, graphql }) => {
        // Orders pushed here are the store's own ("custom" provider); the body is the order object itself.
        if (isObject(body) && 'provider' in body) throw invalid('validation-failed', 'The order is invalid.', [{ pointer: '/provider', detail: 'is not a known property' }]);
        const input = isObject(body) ? { ...body, provider: 'custom' } : body;
        const data = await graphql<{ upsertOrder: Shaped }>(UPSERT_ORDER, { storeId: params.storeId, input });
        return { status: 200, json: `{"order":${data.upsertOrder.restJson}}` };
      },
    }),
  );

  routes.add(
    'POST',
    '/stores/:storeId/returns',
    v2Route(deps, {
      scope: 'returns_write',
      body: BODY_LIMIT,
      handle: async ({ req, params, body, graphql }) => {
        const key = req.headers['idempotency-key'];
        if (Array.isArray(key) || (typeof key === 'string' && (key.length < 1 || key.length > 255))) {
          throw invalid('validation-failed', 'The Idempotency-Key must be one value of 1 to 255 characters.', [
            { pointer: 'header#idempotency-key', detail: 'must be 1 to 255 characters' },
          ]);
        }
        const data = await graphql<{ createReturn: { replayed: boolean; return: Shaped; externalRMAResponses: unknown[] } }>(CREATE_RETURN, {
          storeId: params.storeId,
          input: body,
          key: key ?? null,
        });
        const { replayed, return: ret, externalRMAResponses } = data.createReturn;
        return { status: replayed ? 200 : 201, json: `{"return":${ret.restJson},"externalRMAResponses":${JSON.stringify(externalRMAResponses)}}` };
      },
    }),
  );

  routes.add(
    'GET',
    '/returns/:returnId',
    v2Route(deps, {
      scope: 'returns_read',
      handle: async ({ params, graphql }) => {
        const data = await graphql<{ return: (Shaped & { order: Shaped }) | null }>(GET_RETURN, { id: params.returnId });
        if (!data.return) throw returnNotFound(params.returnId!);
        return { status: 200, json: `{"return":${data.return.restJson},"order":${data.return.order.restJson}}` };
      },
    }),
  );

  routes.add(
    'GET',
    '/stores/:storeId/returns',
    v2Route(deps, {
      scope: 'returns_read',
      paginated: true,
      query: ['status', 'type', 'updated_at_min', 'updated_at_max', 'created_at_min', 'created_at_max', 'provider_order_name', 'shopify_order_name'],
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
        return { status: 200, json: data.returns.restJson, headers: pageHeaders(data.returns.pageInfo) };
      },
    }),
  );

  routes.add(
    'PUT',
    '/returns/:returnId/status',
    v2Route(deps, {
      scope: 'returns_write',
      body: BODY_LIMIT,
      handle: async ({ params, body, graphql }) => {
        const status = isObject(body) ? body.status : undefined;
        if (typeof status !== 'string' || !REST_STATUS_TARGETS.includes(status)) {
          throw invalid('validation-failed', 'The status is invalid.', [{ pointer: '/status', detail: `must be one of ${REST_STATUS_TARGETS.join(', ')}` }]);
        }
        await graphql(UPDATE_STATUS, { id: params.returnId, status });
        return { status: 204 };
      },
    }),
  );

  routes.add(
    'GET',
    '/returns/:returnId/comments',
    v2Route(deps, {
      scope: 'returns_read',
      handle: async ({ params, graphql }) => {
        const data = await graphql<{ return: { comments: unknown[] } | null }>(LIST_COMMENTS, { id: params.returnId });
        if (!data.return) throw returnNotFound(params.returnId!);
        return { status: 200, body: { comments: data.return.comments } };
      },
    }),
  );

  routes.add(
    'POST',
    '/returns/:returnId/comments',
    v2Route(deps, {
      scope: 'returns_write',
      body: BODY_LIMIT,
      handle: async ({ params, body, graphql }) => {
        const comment = isObject(body) ? body.comment : undefined;
        const message = isObject(comment) ? comment.message : undefined;
        if (typeof message !== 'string') {
          throw invalid('validation-failed', 'The comment is invalid.', [{ pointer: isObject(comment) ? '/comment/message' : '/comment', detail: isObject(comment) ? 'must be a string' : 'is required' }]);
        }
        const data = await graphql<{ addReturnComment: unknown }>(ADD_COMMENT, { id: params.returnId, message });
        return { status: 201, body: { comment: data.addReturnComment } };
      },
    }),
  );
}
