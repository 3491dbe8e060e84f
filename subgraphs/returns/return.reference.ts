import { visible } from '../../platform/graphql/authorize.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import { returnLoaders } from './return.resolver.js';
import type { ReturnService } from './return.service.js';

/** `_entities` lookups, scoped like every other lookup: another account's row resolves to null. */
export function returnReferences(service: ReturnService) {
  return {
    Return: async (ref: { id: string }, ctx: GraphQLContext) => visible(ctx, await returnLoaders(ctx, service).returns.load(ref.id)),
    Order: async (ref: { id: string }, ctx: GraphQLContext) => visible(ctx, await returnLoaders(ctx, service).orders.load(ref.id)),
  };
}
