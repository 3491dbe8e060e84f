import { Arg, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { hasScope, scopeForbidden } from '../../platform/api/auth.js';
import { notFound } from '../../platform/errors.js';
import { authorizeStoreAccess, visible } from '../../platform/graphql/authorize.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import { returnLoaders, type ReturnsResolverDeps } from './return.resolver.js';
import { ReturnType } from './return.type.js';
import type { ReturnView } from './return.view.js';
import { restReturnTag } from './return-tag.json.js';
import type { ReturnTagReads, ReturnTagRow } from './return-tag.rows.js';
import type { ReturnTagService } from './return-tag.service.js';
import { ReturnTagType } from './return-tag.type.js';

export interface ReturnTagResolverDeps extends Pick<ReturnsResolverDeps, 'accounts' | 'reads' | 'orderReads'> {
  tagReads: ReturnTagReads;
  tags: ReturnTagService;
}

/** Return tags for dashboards (and the REST routes): the store's tags, and the tags a return carries. */
@Resolver(() => ReturnTagType)
export class ReturnTagResolver {
  constructor(private readonly deps: ReturnTagResolverDeps) {}

  @Query(() => [ReturnTagType], { description: "A store's return tags, by name." })
  async returnTags(@Arg('storeId', () => ID) storeId: string, @Ctx() ctx: GraphQLContext): Promise<ReturnTagRow[]> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'returns_read');
    return this.deps.tagReads.list(storeId);
  }

  @Mutation(() => ReturnTagType, {
    description: '`input` is the REST body {pillTheme, newName?}: creates the tag, recolours it, or renames it (returns carrying it show the new name).',
  })
  async upsertReturnTag(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('name', () => String) name: string,
    @Arg('pillTheme', () => String) pillTheme: string,
    @Arg('newName', () => String, { nullable: true }) newName: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<ReturnTagRow> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'returns_write');
    return this.deps.tags.upsert(storeId, name, newName === undefined || newName === null ? { pillTheme } : { pillTheme, newName });
  }

  @Mutation(() => Boolean, { description: 'Deletes a tag and strips it from every return that carried it.' })
  async deleteReturnTag(@Arg('storeId', () => ID) storeId: string, @Arg('name', () => String) name: string, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'returns_write');
    await this.deps.tags.remove(storeId, name);
    return true;
  }

  @FieldResolver(() => String, { description: 'This tag as the REST API shows it, as JSON text.' })
  restJson(@Root() tag: ReturnTagRow): string {
    return JSON.stringify(restReturnTag(tag));
  }
}

@Resolver(() => ReturnType)
export class ReturnTaggingResolver {
  constructor(private readonly deps: ReturnTagResolverDeps) {}

  @Mutation(() => ReturnType, { description: 'Sets the tags a return carries (by name; tags the store lacks are created with the NORMAL theme).' })
  async setReturnTags(@Arg('returnId', () => ID) returnId: string, @Arg('tags', () => [String]) tags: string[], @Ctx() ctx: GraphQLContext): Promise<ReturnView> {
    const view = visible(ctx, await returnLoaders(ctx, this.deps).returns.load(returnId));
    if (!view) throw notFound('return-not-found', `Return ${returnId} was not found.`);
    if (!hasScope(ctx.auth, 'returns_write')) throw scopeForbidden('returns_write');
    return this.deps.tags.setReturnTags(view.storeId, returnId, tags);
  }

  @FieldResolver(() => Boolean, { description: 'Imported from another system (POST /stores/{storeId}/returns/bulk)' })
  imported(@Root() ret: ReturnView): boolean {
    return ret.importedAt !== null;
  }
}
