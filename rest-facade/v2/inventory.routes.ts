import { notFound } from '../../platform/errors.js';
import { timeBoundInstant } from '../../platform/validation/index.js';
import { Strict } from '../../platform/validation/index.js';
import {
  InboundShipmentDetailSchema,
  InboundShipmentListQuerySchema,
  InboundShipmentListSchema,
  InventoryItemDocumentSchema,
  InventoryItemListQuerySchema,
  InventoryItemListSchema,
  InventoryLevelDetailSchema,
  InventoryLevelListQuerySchema,
  InventoryLevelListSchema,
} from '../../subgraphs/inventory/public.js';
import { operation } from '../gateway-client.js';
import type { RouteRegistry } from '../pipeline/routing.js';

// The inventory subgraph serves its REST documents as JSON text (`restJson`), the same documents its
// outbox events carry: these routes splice that text into the response, mapping nothing.
const LIST_SHIPMENTS = operation(`
  query ListInboundShipments($storeId: ID!, $first: Int, $after: String, $status: InboundShipmentStatus, $locationId: ID,
                             $createdAtMin: DateTime, $createdAtMax: DateTime) {
    inboundShipments(storeId: $storeId, first: $first, after: $after, status: $status, locationId: $locationId,
                     createdAtMin: $createdAtMin, createdAtMax: $createdAtMax) {
      restJson
      pageInfo { hasNextPage endCursor }
    }
  }
`);

const GET_SHIPMENT = operation(`
  query GetInboundShipment($storeId: ID!, $id: ID!) { inboundShipment(storeId: $storeId, id: $id) { restDetailJson } }
`);

const LIST_ITEMS = operation(`
  query ListInventoryItems($storeId: ID!, $first: Int, $after: String, $locationId: ID, $kind: InventoryKind, $sku: String, $lotNumber: String) {
    inventoryItems(storeId: $storeId, first: $first, after: $after, locationId: $locationId, kind: $kind, sku: $sku, lotNumber: $lotNumber) {
      restJson
      pageInfo { hasNextPage endCursor }
    }
  }
`);

const GET_ITEM = operation(`
  query GetInventoryItem($storeId: ID!, $id: ID!) { inventoryItem(storeId: $storeId, id: $id) { restJson } }
`);

const LIST_LEVELS = operation(`
  query ListInventoryLevels($storeId: ID!, $first: Int, $after: String, $locationId: ID, $productId: ID, $sku: String,
                            $updatedAtMin: DateTime, $updatedAtMax: DateTime) {
    productLevels(storeId: $storeId, first: $first, after: $after, locationId: $locationId, productId: $productId, sku: $sku,
                  updatedAtMin: $updatedAtMin, updatedAtMax: $updatedAtMax) {
      restJson
      pageInfo { hasNextPage endCursor }
    }
  }
`);

const GET_LEVEL = operation(`
  query GetInventoryLevel($storeId: ID!, $id: ID!) { productLevel(storeId: $storeId, id: $id) { restDetailJson } }
`);

const TAG = 'Inventory';

interface Listed {
  restJson: string;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

export function registerInventoryRoutes(routes: RouteRegistry): void {
  routes.add('GET', '/stores/:storeId/inbound-shipments', {
    operationId: 'listInboundShipments',
    tag: TAG,
    summary: "A store's inbound shipments, most recently updated first",
    scope: 'inbound_shipments_read',
    responses: { 200: { description: 'A page of inbound shipments.', schema: InboundShipmentListSchema } },
    paginated: true,
    query: InboundShipmentListQuerySchema,
    handle: async ({ params, query, page, graphql }) => {
      const data = await graphql<{ inboundShipments: Listed }>(LIST_SHIPMENTS, {
        storeId: params.storeId,
        first: page.first,
        after: page.after,
        status: query.status,
        locationId: query.location_id,
        // A date-only bound is that day's start in UTC, whatever the database's time zone.
        createdAtMin: query.created_at_min && timeBoundInstant(query.created_at_min),
        createdAtMax: query.created_at_max && timeBoundInstant(query.created_at_max),
      });
      return { status: 200, json: data.inboundShipments.restJson, page: data.inboundShipments.pageInfo };
    },
  });

  routes.add('GET', '/stores/:storeId/inbound-shipments/:id', {
    operationId: 'getInboundShipment',
    tag: TAG,
    summary: 'One inbound shipment',
    scope: 'inbound_shipments_read',
    responses: { 200: { description: 'The inbound shipment with its detail fields.', schema: Strict({ inbound_shipment: InboundShipmentDetailSchema }) } },
    problems: { 404: ['inbound-shipment-not-found'] },
    handle: async ({ params, graphql }) => {
      const data = await graphql<{ inboundShipment: { restDetailJson: string } | null }>(GET_SHIPMENT, { storeId: params.storeId, id: params.id });
      if (!data.inboundShipment) throw notFound('inbound-shipment-not-found', `Inbound shipment ${params.id} was not found.`);
      return { status: 200, json: `{"inbound_shipment":${data.inboundShipment.restDetailJson}}` };
    },
  });

  routes.add('GET', '/stores/:storeId/inventory-items', {
    operationId: 'listInventoryItems',
    tag: TAG,
    summary: "A store's items with stock, most recently updated first",
    description: 'Only items with stock on hand. With `location_id`, `quantity` is the quantity at that location.',
    scope: 'inventory_read',
    responses: { 200: { description: 'A page of inventory items.', schema: InventoryItemListSchema } },
    paginated: true,
    query: InventoryItemListQuerySchema,
    handle: async ({ params, query, page, graphql }) => {
      const data = await graphql<{ inventoryItems: Listed }>(LIST_ITEMS, {
        storeId: params.storeId,
        first: page.first,
        after: page.after,
        locationId: query.location_id,
        kind: query.kind,
        sku: query.sku,
        lotNumber: query.lot_number,
      });
      return { status: 200, json: data.inventoryItems.restJson, page: data.inventoryItems.pageInfo };
    },
  });

  routes.add('GET', '/stores/:storeId/inventory-items/:id', {
    operationId: 'getInventoryItem',
    tag: TAG,
    summary: 'One inventory item (also at zero stock)',
    scope: 'inventory_read',
    responses: { 200: { description: 'The inventory item.', schema: Strict({ inventory_item: InventoryItemDocumentSchema }) } },
    problems: { 404: ['inventory-item-not-found'] },
    handle: async ({ params, graphql }) => {
      const data = await graphql<{ inventoryItem: { restJson: string } | null }>(GET_ITEM, { storeId: params.storeId, id: params.id });
      if (!data.inventoryItem) throw notFound('inventory-item-not-found', `Inventory item ${params.id} was not found.`);
      return { status: 200, json: `{"inventory_item":${data.inventoryItem.restJson}}` };
    },
  });

  routes.add('GET', '/stores/:storeId/inventory-levels', {
    operationId: 'listInventoryLevels',
    tag: TAG,
    summary: "A store's inventory levels (a product at a location), most recently updated first",
    description: 'A level counts every unit of the product at the location, whatever its kind or lot. Nothing is reserved or committed: `available` is the quantity on hand.',
    scope: 'inventory_read',
    responses: { 200: { description: 'A page of inventory levels.', schema: InventoryLevelListSchema } },
    paginated: true,
    query: InventoryLevelListQuerySchema,
    handle: async ({ params, query, page, graphql }) => {
      const data = await graphql<{ productLevels: Listed }>(LIST_LEVELS, {
        storeId: params.storeId,
        first: page.first,
        after: page.after,
        locationId: query.location_id,
        productId: query.product_id,
        sku: query.sku,
        updatedAtMin: query.updated_at_min && timeBoundInstant(query.updated_at_min),
        updatedAtMax: query.updated_at_max && timeBoundInstant(query.updated_at_max),
      });
      return { status: 200, json: data.productLevels.restJson, page: data.productLevels.pageInfo };
    },
  });

  routes.add('GET', '/stores/:storeId/inventory-levels/:id', {
    operationId: 'getInventoryLevel',
    tag: TAG,
    summary: 'One inventory level',
    scope: 'inventory_read',
    responses: { 200: { description: 'The inventory level with its detail fields.', schema: Strict({ inventory_level: InventoryLevelDetailSchema }) } },
    problems: { 404: ['inventory-level-not-found'] },
    handle: async ({ params, graphql }) => {
      const data = await graphql<{ productLevel: { restDetailJson: string } | null }>(GET_LEVEL, { storeId: params.storeId, id: params.id });
      if (!data.productLevel) throw notFound('inventory-level-not-found', `Inventory level ${params.id} was not found.`);
      return { status: 200, json: `{"inventory_level":${data.productLevel.restDetailJson}}` };
    },
  });
}
