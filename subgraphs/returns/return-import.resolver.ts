import { Arg, Ctx, FieldResolver, ID, Mutation, Resolver, Root } from 'type-graphql';
import { authorizeStoreAccess } from '../../platform/graphql/authorize.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import { JSONScalar as GraphQLJSON } from '../../platform/graphql/scalars.js';
import type { ReturnsResolverDeps } from './return.resolver.js';
import type { BulkReturnsResult } from './return-import.schemas.js';
import type { ReturnImport } from './return-import.service.js';
import { ImportReturnsPayloadType } from './return-import.type.js';

@Resolver(() => ImportReturnsPayloadType)
export class ReturnImportResolver {
  constructor(private readonly deps: Pick<ReturnsResolverDeps, 'accounts'> & { imports: ReturnImport }) {}

  @Mutation(() => ImportReturnsPayloadType, {
    description:
      'Imports returns made in another system (the REST body of POST /stores/{storeId}/returns/bulk: {returns: [...], options?}), in one transaction; each invalid return is an error result. The same externalReferenceId (or idempotencyKey) again is the same return.',
  })
  async importReturns(@Arg('storeId', () => ID) storeId: string, @Arg('input', () => GraphQLJSON) input: unknown, @Ctx() ctx: GraphQLContext): Promise<BulkReturnsResult> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'returns_write');
    return this.deps.imports.importReturns(storeId, input);
  }

  @FieldResolver(() => String, { description: 'The result as the REST API shows it, as JSON text.' })
  restJson(@Root() result: BulkReturnsResult): string {
    return JSON.stringify(result);
  }
}
