import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, FieldResolver, ID, Info, Int, Query, Resolver, Root } from 'type-graphql';
import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import { authorizeStoreAccess } from '../../platform/graphql/authorize.js';
import { toConnection, type Connection } from '../../platform/graphql/connection.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import { selects } from '../../platform/graphql/selection.js';
import { pageRequest } from '../../platform/api/pagination.js';
import { inventoryLevelDetailJson, inventoryLevelJson } from './inventory-level.json.js';
import { inventoryLevelListFilters, type InventoryLevelService } from './inventory-level.service.js';
import { ProductLevelConnection, ProductLevelType } from './inventory-level.type.js';
import type { InventoryLevelView } from './inventory-level.view.js';

export interface InventoryLevelResolverDeps {
  levels: InventoryLevelService;
  accounts: AccountsService;
}

@Resolver(() => ProductLevelType)
export class InventoryLevelResolver {
  constructor(private readonly deps: InventoryLevelResolverDeps) {}

  @Query(() => ProductLevelConnection, { description: "The store's inventory levels (a product at a location), most recently updated first." })
  async productLevels(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Arg('locationId', () => ID, { nullable: true }) locationId: string | undefined,
    @Arg('productId', () => ID, { nullable: true }) productId: string | undefined,
    @Arg('sku', () => String, { nullable: true }) sku: string | undefined,
    @Arg('updatedAtMin', () => Date, { nullable: true, description: 'Inclusive' }) updatedAtMin: Date | undefined,
    @Arg('updatedAtMax', () => Date, { nullable: true, description: 'Exclusive' }) updatedAtMax: Date | undefined,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<InventoryLevelView>> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'inventory_read');
    const filters = { locationId, productId, sku, updatedAtMin, updatedAtMax };
    return toConnection(await this.deps.levels.listLevels(storeId, filters, pageRequest(first, after, inventoryLevelListFilters(storeId, filters), selects(info, 'totalCount'))));
  }

  @Query(() => ProductLevelType, { nullable: true, description: 'A level of the store; null when absent.' })
  async productLevel(@Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<InventoryLevelView | null> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'inventory_read');
    const [row] = await this.deps.levels.levelsByIds([id]);
    return row?.storeId === storeId ? row : null;
  }

  @FieldResolver(() => String, { description: 'This level as REST API v2.2 shows it alone (with the detail fields), as JSON text.' })
  restDetailJson(@Root() level: InventoryLevelView): string {
    return JSON.stringify(inventoryLevelDetailJson(level));
  }
}

@Resolver(() => ProductLevelConnection)
export class InventoryLevelPageResolver {
  @FieldResolver(() => String, { description: 'This page as the REST list shows it, as JSON text: {"inventory_levels": [...]}.' })
  restJson(@Root() page: Connection<InventoryLevelView>): string {
    return JSON.stringify({ inventory_levels: page.edges.map((e) => inventoryLevelJson(e.node)) });
  }
}
