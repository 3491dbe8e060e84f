import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, FieldResolver, ID, Info, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { selects } from '../../platform/graphql/selection.js';
import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import type { Scope } from '../../platform/accounts/credentials.js';
import { authorizeStoreAccess, visible } from '../../platform/graphql/authorize.js';
import { toConnection, type Connection } from '../../platform/graphql/connection.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import { notFound } from '../../platform/errors.js';
import { pageRequest } from '../../platform/pagination.js';
import { inboundShipmentListFilters, type InboundShipmentService } from './inbound-shipment.service.js';
import {
  AdjustInventoryInput,
  CreateInboundShipmentInput,
  CreateLocationInput,
  ReceiveInboundShipmentItemInput,
  ReceiveUndeclaredInput,
  UpsertProductInput,
} from './inventory.input.js';
import { inventoryLoaders } from './inventory.loaders.js';
import { inventoryItemListFilters, inventoryLevelListFilters, type InventoryService } from './inventory.service.js';
import {
  InboundShipmentConnection,
  InboundShipmentStatus,
  InboundShipmentType,
  InventoryItemConnection,
  ProductLevelConnection,
  ProductLevelType,
  InventoryItemType,
  InventoryKind,
  LocationType,
  ProductType,
} from './inventory.type.js';
import type { InboundShipmentView, InventoryItemView, InventoryLevelRow, LocationRow, ProductRow } from './inventory.views.js';
import { inboundShipmentDetailJson, inboundShipmentJson, inventoryItemJson, inventoryLevelDetailJson, inventoryLevelJson } from './inventory.json.js';

export interface InventoryResolverDeps {
  inventory: InventoryService;
  shipments: InboundShipmentService;
  accounts: AccountsService;
}

/*
 * Scopes: the contract has read scopes only for this area, and its writes are
 * internal-tool mutations. Shipment operations need `inbound_shipments_read`,
 * every other inventory operation `inventory_read` (docs/decisions.md).
 */
const INVENTORY: Scope = 'inventory_read';
const SHIPMENTS: Scope = 'inbound_shipments_read';

@Resolver(() => LocationType)
export class LocationResolver {
  constructor(private readonly deps: InventoryResolverDeps) {}

  @Query(() => [LocationType], { description: "The store's locations (warehouses, return centres)." })
  async locations(@Arg('storeId', () => ID) storeId: string, @Ctx() ctx: GraphQLContext): Promise<LocationRow[]> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, INVENTORY);
    return this.deps.inventory.locations(storeId);
  }

  @Mutation(() => LocationType)
  async createLocation(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => CreateLocationInput) input: CreateLocationInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<LocationRow> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, INVENTORY);
    return this.deps.inventory.createLocation(storeId, input);
  }
}

@Resolver(() => ProductType)
export class ProductResolver {
  constructor(private readonly deps: InventoryResolverDeps) {}

  @Query(() => ProductType, { nullable: true, description: 'A product of the store by id or sku; null when absent.' })
  async product(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('id', () => ID, { nullable: true }) id: string | undefined,
    @Arg('sku', () => String, { nullable: true }) sku: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<ProductRow | null> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, INVENTORY);
    const loaders = inventoryLoaders(ctx, this.deps.inventory, this.deps.shipments);
    const row = id ? await loaders.products.load(id) : sku ? await loaders.productsBySku.load({ storeId, sku }) : null;
    return row?.storeId === storeId ? row : null;
  }

  @Mutation(() => ProductType, { description: 'Creates the product of a sku, or updates it.' })
  async upsertProduct(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => UpsertProductInput) input: UpsertProductInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<ProductRow> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, INVENTORY);
    return this.deps.inventory.upsertProduct(storeId, input);
  }
}

@Resolver(() => InventoryItemType)
export class InventoryItemResolver {
  constructor(private readonly deps: InventoryResolverDeps) {}

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
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, INVENTORY);
    const filters = { locationId, kind, sku, lotNumber };
    const page = await this.deps.inventory.listItems(storeId, filters, pageRequest(first, after, inventoryItemListFilters(storeId, filters), selects(info, 'totalCount')));
    return toConnection(page);
  }

  @Query(() => InventoryItemType, { nullable: true, description: 'An item of the store (also at zero stock); null when absent.' })
  async inventoryItem(@Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<InventoryItemView | null> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, INVENTORY);
    const row = await inventoryLoaders(ctx, this.deps.inventory, this.deps.shipments).items.load(id);
    return row?.storeId === storeId ? row : null;
  }

  @Mutation(() => InventoryItemType, { description: 'Adds (delta > 0) or removes (delta < 0) units at a location; never below zero.' })
  async adjustInventory(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => AdjustInventoryInput) input: AdjustInventoryInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<InventoryItemView> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, INVENTORY);
    return this.deps.inventory.adjustInventory(storeId, input);
  }

  @Mutation(() => InventoryItemType, { description: 'Stock received that no inbound shipment line declared (kind UNDECLARED).' })
  async receiveUndeclared(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => ReceiveUndeclaredInput) input: ReceiveUndeclaredInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<InventoryItemView> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, INVENTORY);
    return this.deps.inventory.receiveUndeclared(storeId, input);
  }

  @FieldResolver(() => String, { description: 'This item exactly as REST API v2.2 shows it, as JSON text (the REST facade serves it as is).' })
  restJson(@Root() item: InventoryItemView): string {
    return JSON.stringify(inventoryItemJson(item));
  }

  @FieldResolver(() => ProductType, { nullable: true })
  async product(@Root() item: InventoryItemView, @Ctx() ctx: GraphQLContext): Promise<ProductRow | null> {
    if (!item.productId) return null;
    return inventoryLoaders(ctx, this.deps.inventory, this.deps.shipments).products.load(item.productId);
  }
}

@Resolver(() => InboundShipmentType)
export class InboundShipmentResolver {
  constructor(private readonly deps: InventoryResolverDeps) {}

  @Query(() => InboundShipmentConnection, { description: "The store's inbound shipments, most recently updated first." })
  async inboundShipments(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('first', () => Int, { nullable: true }) first: number | undefined,
    @Arg('after', () => String, { nullable: true }) after: string | undefined,
    @Arg('status', () => InboundShipmentStatus, { nullable: true }) status: InboundShipmentStatus | undefined,
    @Arg('locationId', () => ID, { nullable: true }) locationId: string | undefined,
    @Arg('createdAtMin', () => Date, { nullable: true, description: 'Inclusive' }) createdAtMin: Date | undefined,
    @Arg('createdAtMax', () => Date, { nullable: true, description: 'Exclusive' }) createdAtMax: Date | undefined,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<InboundShipmentView>> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, SHIPMENTS);
    const filters = { status, locationId, createdAtMin, createdAtMax };
    const page = await this.deps.shipments.list(storeId, filters, pageRequest(first, after, inboundShipmentListFilters(storeId, filters), selects(info, 'totalCount')));
    return toConnection(page);
  }

  @Query(() => InboundShipmentType, { nullable: true, description: 'A shipment of the store; null when absent.' })
  async inboundShipment(@Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<InboundShipmentView | null> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, SHIPMENTS);
    const row = await inventoryLoaders(ctx, this.deps.inventory, this.deps.shipments).shipments.load(id);
    return row?.storeId === storeId ? row : null;
  }

  @Mutation(() => InboundShipmentType, { description: 'Creates a PENDING shipment of products to a location.' })
  async createInboundShipment(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => CreateInboundShipmentInput) input: CreateInboundShipmentInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<InboundShipmentView> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, SHIPMENTS);
    return this.deps.shipments.create(storeId, input);
  }

  @Mutation(() => InboundShipmentType, { description: 'PENDING -> IN_TRANSIT.' })
  async markInboundShipmentInTransit(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<InboundShipmentView> {
    await this.authorizeShipment(ctx, id);
    return this.deps.shipments.markInTransit(id);
  }

  @Mutation(() => InboundShipmentType, { description: 'Records one receipt; good units go to stock (kind PRODUCT) at the shipment location.' })
  async receiveInboundShipment(
    @Arg('id', () => ID) id: string,
    @Arg('items', () => [ReceiveInboundShipmentItemInput]) items: ReceiveInboundShipmentItemInput[],
    @Ctx() ctx: GraphQLContext,
  ): Promise<InboundShipmentView> {
    await this.authorizeShipment(ctx, id);
    return this.deps.shipments.receive(id, items);
  }

  @FieldResolver(() => String, { description: 'This shipment exactly as REST API v2.2 lists it, as JSON text (the REST facade serves it as is).' })
  restJson(@Root() shipment: InboundShipmentView): string {
    return JSON.stringify(inboundShipmentJson(shipment));
  }

  @FieldResolver(() => String, { description: 'This shipment as REST API v2.2 shows it alone (with the detail fields), as JSON text.' })
  restDetailJson(@Root() shipment: InboundShipmentView): string {
    return JSON.stringify(inboundShipmentDetailJson(shipment));
  }

  /** A shipment of a store the caller cannot see does not exist (404), then the scope (403). */
  private async authorizeShipment(ctx: GraphQLContext, id: string): Promise<void> {
    const row = visible(ctx, await inventoryLoaders(ctx, this.deps.inventory, this.deps.shipments).shipments.load(id));
    if (!row) throw notFound('inbound-shipment-not-found', `Inbound shipment ${id} was not found.`);
    await authorizeStoreAccess(ctx, this.deps.accounts, row.storeId, SHIPMENTS);
  }
}

@Resolver(() => InventoryItemConnection)
export class InventoryItemPageResolver {
  @FieldResolver(() => String, { description: 'This page as the REST list shows it, as JSON text: {"inventory_items": [...]}.' })
  restJson(@Root() page: Connection<InventoryItemView>): string {
    return JSON.stringify({ inventory_items: page.edges.map((e) => inventoryItemJson(e.node)) });
  }
}

@Resolver(() => InboundShipmentConnection)
export class InboundShipmentPageResolver {
  @FieldResolver(() => String, { description: 'This page as the REST list shows it, as JSON text: {"inbound_shipments": [...]}.' })
  restJson(@Root() page: Connection<InboundShipmentView>): string {
    return JSON.stringify({ inbound_shipments: page.edges.map((e) => inboundShipmentJson(e.node)) });
  }
}

@Resolver(() => ProductLevelType)
export class InventoryLevelResolver {
  constructor(private readonly deps: InventoryResolverDeps) {}

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
  ): Promise<Connection<InventoryLevelRow>> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, INVENTORY);
    const filters = { locationId, productId, sku, updatedAtMin, updatedAtMax };
    return toConnection(await this.deps.inventory.listLevels(storeId, filters, pageRequest(first, after, inventoryLevelListFilters(storeId, filters), selects(info, 'totalCount'))));
  }

  @Query(() => ProductLevelType, { nullable: true, description: 'A level of the store; null when absent.' })
  async productLevel(@Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<InventoryLevelRow | null> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, INVENTORY);
    const [row] = await this.deps.inventory.levelsByIds([id]);
    return row?.storeId === storeId ? row : null;
  }

  @FieldResolver(() => String, { description: 'This level as REST API v2.2 shows it alone (with the detail fields), as JSON text.' })
  restDetailJson(@Root() level: InventoryLevelRow): string {
    return JSON.stringify(inventoryLevelDetailJson(level));
  }
}

@Resolver(() => ProductLevelConnection)
export class InventoryLevelPageResolver {
  @FieldResolver(() => String, { description: 'This page as the REST list shows it, as JSON text: {"inventory_levels": [...]}.' })
  restJson(@Root() page: Connection<InventoryLevelRow>): string {
    return JSON.stringify({ inventory_levels: page.edges.map((e) => inventoryLevelJson(e.node)) });
  }
}
