import DataLoader from 'dataloader';
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, FieldResolver, ID, Info, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import { authorizeStoreAccess } from '../../platform/graphql/authorize.js';
import { toConnection, type Connection } from '../../platform/graphql/connection.js';
import { memoize, type GraphQLContext } from '../../platform/graphql/context.js';
import { batchById, batchByKey } from '../../platform/graphql/loaders.js';
import { selects } from '../../platform/graphql/selection.js';
import { pageRequest } from '../../platform/api/pagination.js';
import { AdjustInventoryInput, ReceiveUndeclaredInput } from './inventory-item.input.js';
import { inventoryItemJson } from './inventory-item.json.js';
import { InventoryKind } from './inventory-item.rules.js';
import { inventoryItemListFilters, type InventoryItemService } from './inventory-item.service.js';
import { InventoryItemConnection, InventoryItemType } from './inventory-item.type.js';
import type { InventoryItemView } from './inventory-item.view.js';
import { productLoaders } from './product.resolver.js';
import type { ProductRow } from './product.rows.js';
import type { ProductService } from './product.service.js';
import { ProductType } from './product.type.js';

export interface InventoryItemResolverDeps {
  items: InventoryItemService;
  products: ProductService;
  accounts: AccountsService;
}

// The `@key(fields: "storeId sku kind")` of an item.
type ItemEntityKey = { storeId: string; sku: string; kind: string };
const itemKey = (k: ItemEntityKey) => `${k.storeId}\u0000${k.sku}\u0000${k.kind}`;

/** Items by id and by (store, sku, kind), one query per kind of key per request (no visibility check: callers use `visible`). */
export function itemLoaders(ctx: GraphQLContext, items: InventoryItemService) {
  return memoize(ctx, 'inventory.items', () => ({
    byId: new DataLoader<string, InventoryItemView | null>(batchById((ids) => items.itemsByIds(ids))),
    byKey: new DataLoader<ItemEntityKey, InventoryItemView | null, string>(batchByKey((keys) => items.itemsByKey(keys), itemKey, itemKey), { cacheKeyFn: itemKey }),
  }));
}

@Resolver(() => InventoryItemType)
export class InventoryItemResolver {
  constructor(private readonly deps: InventoryItemResolverDeps) {}

  @Query(() => InventoryItemConnection, { description: "The store's items with stock, most recently updated first." })
  async inventoryItems(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Arg('locationId', () => ID, { nullable: true, description: 'Only items with stock there; quantity is then the quantity there.' }) locationId: string | undefined,
    @Arg('kind', () => InventoryKind, { nullable: true }) kind: InventoryKind | undefined,
    @Arg('sku', () => String, { nullable: true }) sku: string | undefined,
    @Arg('lotNumber', () => String, { nullable: true }) lotNumber: string | undefined,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<InventoryItemView>> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'inventory_read');
    const filters = { locationId, kind, sku, lotNumber };
    const page = await this.deps.items.listItems(storeId, filters, pageRequest(first, after, inventoryItemListFilters(storeId, filters), selects(info, 'totalCount')));
    return toConnection(page);
  }

  @Query(() => InventoryItemType, { nullable: true, description: 'An item of the store (also at zero stock); null when absent.' })
  async inventoryItem(@Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<InventoryItemView | null> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'inventory_read');
    const row = await itemLoaders(ctx, this.deps.items).byId.load(id);
    return row?.storeId === storeId ? row : null;
  }

  @Mutation(() => InventoryItemType, { description: 'Adds (delta > 0) or removes (delta < 0) units at a location; never below zero.' })
  async adjustInventory(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => AdjustInventoryInput) input: AdjustInventoryInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<InventoryItemView> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'inventory_read');
    return this.deps.items.adjustInventory(storeId, input);
  }

  @Mutation(() => InventoryItemType, { description: 'Stock received that no inbound shipment line declared (kind UNDECLARED).' })
  async receiveUndeclared(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => ReceiveUndeclaredInput) input: ReceiveUndeclaredInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<InventoryItemView> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'inventory_read');
    return this.deps.items.receiveUndeclared(storeId, input);
  }

  @FieldResolver(() => String, { description: 'This item exactly as REST API v2.2 shows it, as JSON text (the REST facade serves it as is).' })
  restJson(@Root() item: InventoryItemView): string {
    return JSON.stringify(inventoryItemJson(item));
  }

  @FieldResolver(() => ProductType, { nullable: true })
  async product(@Root() item: InventoryItemView, @Ctx() ctx: GraphQLContext): Promise<ProductRow | null> {
    if (!item.productId) return null;
    return productLoaders(ctx, this.deps.products).byId.load(item.productId);
  }
}

@Resolver(() => InventoryItemConnection)
export class InventoryItemPageResolver {
  @FieldResolver(() => String, { description: 'This page as the REST list shows it, as JSON text: {"inventory_items": [...]}.' })
  restJson(@Root() page: Connection<InventoryItemView>): string {
    return JSON.stringify({ inventory_items: page.edges.map((e) => inventoryItemJson(e.node)) });
  }
}
