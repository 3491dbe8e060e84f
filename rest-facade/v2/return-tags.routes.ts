import { ReturnTagDeletedSchema, ReturnTagListSchema, ReturnTagResponseSchema, UpsertReturnTagSchema } from '../../subgraphs/returns/public.js';
import { operation } from '../gateway-client.js';
import type { RouteRegistry } from '../pipeline/routing.js';

/** Return tags (the real platform's return tags): a store's tags; returns carry them in `tags`. */
const TAG = 'Returns';
const BODY_LIMIT = 16 * 1024;

const LIST_TAGS = operation(`query ReturnTags($storeId: ID!) { returnTags(storeId: $storeId) { restJson } }`);

const UPSERT_TAG = operation(`
  mutation UpsertReturnTag($storeId: ID!, $name: String!, $pillTheme: String!, $newName: String) {
    upsertReturnTag(storeId: $storeId, name: $name, pillTheme: $pillTheme, newName: $newName) { restJson }
  }`);

const DELETE_TAG = operation(`mutation DeleteReturnTag($storeId: ID!, $name: String!) { deleteReturnTag(storeId: $storeId, name: $name) }`);

export function registerReturnTagRoutes(routes: RouteRegistry): void {
  routes.add('GET', '/stores/:storeId/return-tags', {
    operationId: 'listReturnTags',
    tag: TAG,
    summary: "A store's return tags",
    description: 'Every tag, by name (a store has at most 1,000: the list has no pages).',
    scope: 'returns_read',
    responses: { 200: { description: 'The tags.', schema: ReturnTagListSchema } },
    handle: async ({ params, graphql }) => {
      const data = await graphql<{ returnTags: { restJson: string }[] }>(LIST_TAGS, { storeId: params.storeId });
      return { status: 200, json: `{"tags":[${data.returnTags.map((t) => t.restJson).join(',')}]}` };
    },
  });

  routes.add('PUT', '/stores/:storeId/return-tags/:name', {
    operationId: 'upsertReturnTag',
    tag: TAG,
    summary: 'Create a return tag, recolour it, or rename it',
    description:
      'Names are case-sensitive (percent-encode them in the path). Without `newName` (or with the same name) the tag is created or recoloured; with another `newName` it is renamed, which every return carrying it shows (each publishes `return.updated`): the tag must exist and the new name be free, else 400 `rename-precondition-failed`.',
    scope: 'returns_write',
    responses: { 200: { description: 'The tag as it now is.', schema: ReturnTagResponseSchema } },
    problems: { 400: ['rename-precondition-failed'], 409: ['too-many-return-tags'] },
    body: { limit: BODY_LIMIT, schema: UpsertReturnTagSchema },
    handle: async ({ params, body, graphql }) => {
      const data = await graphql<{ upsertReturnTag: { restJson: string } }>(UPSERT_TAG, {
        storeId: params.storeId,
        name: params.name,
        pillTheme: body.pillTheme,
        newName: body.newName ?? null,
      });
      return { status: 200, json: `{"tag":${data.upsertReturnTag.restJson}}` };
    },
  });

  routes.add('DELETE', '/stores/:storeId/return-tags/:name', {
    operationId: 'deleteReturnTag',
    tag: TAG,
    summary: 'Delete a return tag',
    description: 'The tag is also taken off every return that carried it (each publishes `return.updated`).',
    scope: 'returns_write',
    responses: { 200: { description: 'The tag was deleted.', schema: ReturnTagDeletedSchema } },
    problems: { 404: ['return-tag-not-found'] },
    handle: async ({ params, graphql }) => {
      await graphql(DELETE_TAG, { storeId: params.storeId, name: params.name });
      return { status: 200, body: { success: true } };
    },
  });
}
