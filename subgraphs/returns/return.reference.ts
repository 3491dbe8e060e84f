import { visible } from '../../platform/graphql/authorize.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import { returnLoaders, type ReturnsResolverDeps } from './return.resolver.js';

/** `_entities` lookups, scoped like every other lookup: another account's row resolves to null. */
export function returnReferences(deps: Pick<ReturnsResolverDeps, 'reads' | 'orderReads'>) {
  return {
    Return: async (ref: { id: string }, ctx: GraphQLContext) => visible(ctx, await returnLoaders(ctx, deps).returns.load(ref.id)),
    Order: async (ref: { id: string }, ctx: GraphQLContext) => visible(ctx, await returnLoaders(ctx, deps).orders.load(ref.id)),
  };
}
