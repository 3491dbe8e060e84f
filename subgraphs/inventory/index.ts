import { buildFederatedSchema } from '../../platform/graphql/build-federated-schema.js';
import type { SubgraphDefinition, SubgraphDeps } from '../../platform/subgraph.js';
import { InboundShipmentService } from './inbound-shipment.service.js';
import { INVENTORY_EVENTS } from './inventory.events.js';
import { inventoryReferences } from './inventory.reference.js';
import { InboundShipmentPageResolver, InboundShipmentResolver, InventoryItemPageResolver, InventoryItemResolver, InventoryLevelPageResolver, InventoryLevelResolver, LocationResolver, ProductResolver } from './inventory.resolver.js';
import { InventoryService } from './inventory.service.js';
import { InboundShipmentType, InventoryItemType, ProductType } from './inventory.type.js';
import { Migration20261122000200_inventory } from './migrations/Migration20261122000200_inventory.js';
import { Migration20261122000210_inventory_stock } from './migrations/Migration20261122000210_inventory_stock.js';
import { Migration20261203000200_inventory_levels } from './migrations/Migration20261203000200_inventory_levels.js';
import { Migration20261203000210_product_level_bigint } from './migrations/Migration20261203000210_product_level_bigint.js';
import { createRestockQueue, startRestockWorker } from './restock.job.js';

// Entities other subgraphs reference (return items, dashboards) even before a query returns them.
const orphanedTypes = [ProductType, InventoryItemType, InboundShipmentType];
const resolvers = [LocationResolver, ProductResolver, InventoryItemResolver, InboundShipmentResolver, InventoryItemPageResolver, InboundShipmentPageResolver, InventoryLevelResolver, InventoryLevelPageResolver] as const;

export const inventorySubgraph: SubgraphDefinition = {
  name: 'inventory',
  publishes: INVENTORY_EVENTS,
  db: {
    name: 'inventory',
    schema: 'inventory',
    migrations: [
      { name: 'Migration20261122000200_inventory', class: Migration20261122000200_inventory },
      { name: 'Migration20261122000210_inventory_stock', class: Migration20261122000210_inventory_stock },
      { name: 'Migration20261203000200_inventory_levels', class: Migration20261203000200_inventory_levels },
      { name: 'Migration20261203000210_product_level_bigint', class: Migration20261203000210_product_level_bigint },
    ],
  },
  async build(deps?: SubgraphDeps) {
    if (!deps) return buildFederatedSchema({ resolvers: [...resolvers], orphanedTypes });
    const inventory = new InventoryService(deps.orm, deps.boss);
    const shipments = new InboundShipmentService(deps.orm, deps.boss);
    const resolverDeps = { inventory, shipments, accounts: deps.accounts };
    return buildFederatedSchema({
      resolvers: [...resolvers],
      orphanedTypes,
      instances: resolvers.map((R) => new R(resolverDeps)),
      references: inventoryReferences(inventory, shipments),
    });
  },
  createQueues: createRestockQueue,
  startWorkers: startRestockWorker,
};
