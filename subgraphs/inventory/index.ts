import { defineModule, type ModuleDeps } from '../../platform/module.js';
// In entity order: type-graphql prints types and root fields in the order their decorators ran (the committed schema's order).
import { LocationResolver } from './location.resolver.js';
import { LocationService } from './location.service.js';
import { locationReferences } from './location.reference.js';
import { ProductResolver } from './product.resolver.js';
import { ProductService } from './product.service.js';
import { ProductType } from './product.type.js';
import { productReferences } from './product.reference.js';
import { InventoryItemPageResolver, InventoryItemResolver } from './inventory-item.resolver.js';
import { InventoryItemService, inventoryItemDocumentsPage } from './inventory-item.service.js';
import { InventoryItemType } from './inventory-item.type.js';
import { inventoryItemReferences } from './inventory-item.reference.js';
import { InboundShipmentPageResolver, InboundShipmentResolver } from './inbound-shipment.resolver.js';
import { InboundShipmentService, inboundShipmentDocumentsPage } from './inbound-shipment.service.js';
import { InboundShipmentType } from './inbound-shipment.type.js';
import { inboundShipmentReferences } from './inbound-shipment.reference.js';
import { InventoryLevelPageResolver, InventoryLevelResolver } from './inventory-level.resolver.js';
import { InventoryStatsResolver } from './inventory-stats.resolver.js';
import { InventoryStatsReads } from './inventory-stats.rows.js';
import { InventoryLevelService } from './inventory-level.service.js';
import { INVENTORY_EVENTS } from './inventory.events.js';
import { Migration20261122000200_inventory } from './migrations/Migration20261122000200_inventory.js';
import { Migration20261122000210_inventory_stock } from './migrations/Migration20261122000210_inventory_stock.js';
import { Migration20261203000200_inventory_levels } from './migrations/Migration20261203000200_inventory_levels.js';
import { Migration20261203000210_product_level_bigint } from './migrations/Migration20261203000210_product_level_bigint.js';
import { createRestockQueue, RESTOCK_CONSUMER, startRestockWorker } from './restock.job.js';

// Entities other subgraphs reference (return items, dashboards) even before a query returns them.
const orphanedTypes = [ProductType, InventoryItemType, InboundShipmentType];
/*
 * Scopes: the contract has read scopes only for this area, and its writes are
 * internal-tool mutations. Shipment operations need `inbound_shipments_read`,
 * every other inventory operation `inventory_read` (docs/decisions.md).
 */
const resolvers = [LocationResolver, ProductResolver, InventoryItemResolver, InboundShipmentResolver, InventoryItemPageResolver, InboundShipmentPageResolver, InventoryLevelResolver, InventoryLevelPageResolver, InventoryStatsResolver] as const;

function services(deps: ModuleDeps) {
  return {
    deps,
    accounts: deps.accounts,
    locations: new LocationService(deps.orm),
    products: new ProductService(deps.orm),
    items: new InventoryItemService(deps.orm),
    levels: new InventoryLevelService(deps.orm),
    shipments: new InboundShipmentService(deps.orm),
    stats: new InventoryStatsReads(deps.heavyReads),
  };
}

export const inventorySubgraph = defineModule({
  name: 'inventory',
  publishes: INVENTORY_EVENTS,
  consumes: [RESTOCK_CONSUMER],
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
  queues: createRestockQueue,
  services,
  graph: {
    graph: 'inventory',
    resolvers: [...resolvers],
    orphanedTypes,
    instances: (s) => resolvers.map((R) => new R(s)),
    references: (s) => ({
      ...locationReferences(s.locations),
      ...productReferences(s.products),
      ...inventoryItemReferences(s.items),
      ...inboundShipmentReferences(s.shipments),
    }),
  },
  workers: ({ deps }) => startRestockWorker(deps),
  subjects: ({ deps }) => ({
    inbound_shipment: (storeId, after, limit) => inboundShipmentDocumentsPage(deps.orm, storeId, after, limit),
    inventory_item: (storeId, after, limit) => inventoryItemDocumentsPage(deps.orm, storeId, after, limit),
  }),
});
