import { buildFederatedSchema } from '../../platform/graphql/build-federated-schema.js';
import type { SubgraphDefinition, SubgraphDeps } from '../../platform/subgraph.js';
import { InboundShipmentEntity, InventoryItemEntity, LocationEntity, ProductEntity } from './inventory.entity.js';
import { inventoryReferences } from './inventory.reference.js';
import { LocationResolver } from './inventory.resolver.js';
import { InventoryService } from './inventory.service.js';
import { InboundShipmentType, InventoryItemType, ProductType } from './inventory.type.js';
import { Migration20261122000200_inventory } from './migrations/Migration20261122000200_inventory.js';

// Entities other subgraphs reference (return items, dashboards) even before a query returns them.
const orphanedTypes = [ProductType, InventoryItemType, InboundShipmentType];

export const inventorySubgraph: SubgraphDefinition = {
  name: 'inventory',
  db: {
    name: 'inventory',
    schema: 'inventory',
    entities: [LocationEntity, ProductEntity, InventoryItemEntity, InboundShipmentEntity],
    migrations: [{ name: 'Migration20261122000200_inventory', class: Migration20261122000200_inventory }],
  },
  async build(deps?: SubgraphDeps) {
    if (!deps) return buildFederatedSchema({ resolvers: [LocationResolver], orphanedTypes });
    const inventory = new InventoryService(deps.orm);
    return buildFederatedSchema({
      resolvers: [LocationResolver],
      orphanedTypes,
      instances: [new LocationResolver({ inventory, accounts: deps.accounts })],
      references: inventoryReferences(inventory),
    });
  },
};
