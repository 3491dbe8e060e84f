import { visible } from '../../platform/graphql/authorize.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import { inventoryLoader } from './inventory.resolver.js';
import type { InventoryService, Table } from './inventory.service.js';

const ENTITY_TABLES: Record<string, Table> = {
  Location: 'location',
  Product: 'product',
  InventoryItem: 'inventory_item',
  InboundShipment: 'inbound_shipment',
};

/** `_entities` lookups for every inventory entity, scoped to the caller's stores. */
export function inventoryReferences(inventory: InventoryService) {
  return Object.fromEntries(
    Object.entries(ENTITY_TABLES).map(([typeName, table]) => [
      typeName,
      async (ref: { id: string }, ctx: GraphQLContext) => visible(ctx, await inventoryLoader(ctx, inventory, table).load(ref.id)),
    ]),
  );
}
