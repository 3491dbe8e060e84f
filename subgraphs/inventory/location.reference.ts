import { visible } from '../../platform/graphql/authorize.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import { locationLoader } from './location.resolver.js';
import type { LocationService } from './location.service.js';

/** `_entities` lookups of locations, batched per request; a location of a store the caller cannot see resolves to null. */
export function locationReferences(locations: LocationService) {
  return {
    Location: async (ref: { id: string }, ctx: GraphQLContext) => visible(ctx, await locationLoader(ctx, locations).load(ref.id)),
  };
}
