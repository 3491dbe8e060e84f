import DataLoader from 'dataloader';
import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, FieldResolver, ID, Info, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { AccountsService } from '../../platform/accounts/accounts.service.js';
import { notFound } from '../../platform/errors.js';
import { authorizeStoreAccess, visible } from '../../platform/graphql/authorize.js';
import { toConnection, type Connection } from '../../platform/graphql/connection.js';
import { memoize, type GraphQLContext } from '../../platform/graphql/context.js';
import { batchById } from '../../platform/graphql/loaders.js';
import { selects } from '../../platform/graphql/selection.js';
import { pageRequest } from '../../platform/api/pagination.js';
import { CreateInboundShipmentInput, ReceiveInboundShipmentItemInput } from './inbound-shipment.input.js';
import { inboundShipmentDetailJson, inboundShipmentJson } from './inbound-shipment.json.js';
import { InboundShipmentStatus } from './inbound-shipment.rules.js';
import { inboundShipmentListFilters, type InboundShipmentService } from './inbound-shipment.service.js';
import { InboundShipmentConnection, InboundShipmentType } from './inbound-shipment.type.js';
import type { InboundShipmentView } from './inbound-shipment.view.js';

export interface InboundShipmentResolverDeps {
  shipments: InboundShipmentService;
  accounts: AccountsService;
}

/** Shipments by id, one query per request whatever the number asked (no visibility check: callers use `visible`). */
export function shipmentLoader(ctx: GraphQLContext, shipments: InboundShipmentService) {
  return memoize(ctx, 'inventory.shipments', () => new DataLoader<string, InboundShipmentView | null>(batchById((ids) => shipments.shipmentsByIds(ids))));
}

@Resolver(() => InboundShipmentType)
export class InboundShipmentResolver {
  constructor(private readonly deps: InboundShipmentResolverDeps) {}

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
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'inbound_shipments_read');
    const filters = { status, locationId, createdAtMin, createdAtMax };
    const page = await this.deps.shipments.list(storeId, filters, pageRequest(first, after, inboundShipmentListFilters(storeId, filters), selects(info, 'totalCount')));
    return toConnection(page);
  }

  @Query(() => InboundShipmentType, { nullable: true, description: 'A shipment of the store; null when absent.' })
  async inboundShipment(@Arg('storeId', () => ID) storeId: string, @Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<InboundShipmentView | null> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'inbound_shipments_read');
    const row = await shipmentLoader(ctx, this.deps.shipments).load(id);
    return row?.storeId === storeId ? row : null;
  }

  @Mutation(() => InboundShipmentType, { description: 'Creates a PENDING shipment of products to a location.' })
  async createInboundShipment(
    @Arg('storeId', () => ID) storeId: string,
    @Arg('input', () => CreateInboundShipmentInput) input: CreateInboundShipmentInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<InboundShipmentView> {
    await authorizeStoreAccess(ctx, this.deps.accounts, storeId, 'inbound_shipments_read');
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
    const row = visible(ctx, await shipmentLoader(ctx, this.deps.shipments).load(id));
    if (!row) throw notFound('inbound-shipment-not-found', `Inbound shipment ${id} was not found.`);
    await authorizeStoreAccess(ctx, this.deps.accounts, row.storeId, 'inbound_shipments_read');
  }
}

@Resolver(() => InboundShipmentConnection)
export class InboundShipmentPageResolver {
  @FieldResolver(() => String, { description: 'This page as the REST list shows it, as JSON text: {"inbound_shipments": [...]}.' })
  restJson(@Root() page: Connection<InboundShipmentView>): string {
    return JSON.stringify({ inbound_shipments: page.edges.map((e) => inboundShipmentJson(e.node)) });
  }
}
