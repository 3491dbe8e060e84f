import { invalid, notFound, type FieldError } from '../../platform/errors.js';
import { inboundShipmentJson, inventoryItemJson, type InboundShipmentIn, type InventoryItemIn } from '../../subgraphs/inventory/inventory.json.js';
import { InboundShipmentStatus, InventoryKind } from '../../subgraphs/inventory/inventory.type.js';
import { operation } from '../gateway-client.js';
import type { RouteTable } from '../routing.js';
import { pageHeaders, v2Route, type V2Deps } from './route.js';

const ITEM_FIELDS = 'id sku name kind quantity locations { locationId locationName quantity } createdAt updatedAt';
const SHIPMENT_FIELDS = `id shipmentId status location { id name } carrier trackingNumber trackingUrl estimatedArrivalDate actualArrivalDate
  freightType paymentTerms freightCost { amount currency } dutyCost { amount currency }
  items { id product { id title sku imageUrl } quantity receivedQuantity damagedQuantity missingQuantity }
  skuCount itemCount receivedCount createdAt updatedAt`;

const LIST_SHIPMENTS = operation(`
  query ListInboundShipments($storeId: ID!, $first: Int, $after: String, $status: InboundShipmentStatus, $locationId: ID,
                             $createdAtMin: DateTime, $createdAtMax: DateTime) {
    inboundShipments(storeId: $storeId, first: $first, after: $after, status: $status, locationId: $locationId,
                     createdAtMin: $createdAtMin, createdAtMax: $createdAtMax) {
      edges { node { ${SHIPMENT_FIELDS} } }
      pageInfo { hasNextPage endCursor }
    }
  }
`);

const GET_SHIPMENT = operation(`
  query GetInboundShipment($storeId: ID!, $id: ID!) {
    inboundShipment(storeId: $storeId, id: $id) { ${SHIPMENT_FIELDS} }
  }
`);

const LIST_ITEMS = operation(`
  query ListInventoryItems($storeId: ID!, $first: Int, $after: String, $locationId: ID, $kind: InventoryKind, $sku: String, $lotNumber: String) {
    inventoryItems(storeId: $storeId, first: $first, after: $after, locationId: $locationId, kind: $kind, sku: $sku, lotNumber: $lotNumber) {
      edges { node { ${ITEM_FIELDS} } }
      pageInfo { hasNextPage endCursor }
    }
  }
`);

const GET_ITEM = operation(`
  query GetInventoryItem($storeId: ID!, $id: ID!) {
    inventoryItem(storeId: $storeId, id: $id) { ${ITEM_FIELDS} }
  }
`);

interface PageInfo {
  hasNextPage: boolean;
  endCursor: string | null;
}

// A date (that day's start, UTC) or an RFC 3339 date-time with its offset.
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2}))?$/;

/** Parses the query's filters as the HTTP layer sees them, collecting every bad value (400 `validation-failed`). */
class QueryFilters {
  readonly errors: FieldError[] = [];

  constructor(private readonly query: Record<string, string>) {}

  text(name: string): string | undefined {
    const value = this.query[name];
    if (value === undefined) return undefined;
    if (!value.trim()) this.errors.push({ pointer: `query#${name}`, detail: 'must not be empty' });
    return value;
  }

  oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
    const value = this.query[name];
    if (value === undefined) return undefined;
    if (!(values as readonly string[]).includes(value)) this.errors.push({ pointer: `query#${name}`, detail: `must be one of ${values.join(', ')}` });
    return value as T;
  }

  timestamp(name: string): string | undefined {
    const value = this.query[name];
    if (value === undefined) return undefined;
    const match = TIMESTAMP.exec(value);
    const at = match ? new Date(match[4] ? value : `${value}T00:00:00Z`) : undefined;
    // Round-trip the calendar date so 2026-02-30 is refused rather than rolled over.
    if (!match || !at || Number.isNaN(at.getTime()) || (!match[4] && at.toISOString().slice(0, 10) !== value)) {
      this.errors.push({ pointer: `query#${name}`, detail: 'must be a date (YYYY-MM-DD) or an RFC 3339 date-time with an offset' });
      return undefined;
    }
    return at.toISOString();
  }

  check(): void {
    if (this.errors.length) throw invalid('validation-failed', 'Some filters are invalid.', this.errors);
  }
}

export function registerInventoryRoutes(routes: RouteTable, deps: V2Deps): void {
  routes.add(
    'GET',
    '/stores/:storeId/inbound-shipments',
    v2Route(deps, {
      scope: 'inbound_shipments_read',
      paginated: true,
      query: ['status', 'location_id', 'created_at_min', 'created_at_max'],
      handle: async ({ params, query, page, graphql }) => {
        const f = new QueryFilters(query);
        const variables = {
          storeId: params.storeId,
          first: page.first,
          after: page.after,
          status: f.oneOf('status', Object.values(InboundShipmentStatus)),
          locationId: f.text('location_id'),
          createdAtMin: f.timestamp('created_at_min'),
          createdAtMax: f.timestamp('created_at_max'),
        };
        f.check();
        const data = await graphql<{ inboundShipments: { edges: { node: InboundShipmentIn }[]; pageInfo: PageInfo } }>(LIST_SHIPMENTS, variables);
        return {
          status: 200,
          body: { inbound_shipments: data.inboundShipments.edges.map((e) => inboundShipmentJson(e.node)) },
          headers: pageHeaders(data.inboundShipments.pageInfo),
        };
      },
    }),
  );

  routes.add(
    'GET',
    '/stores/:storeId/inbound-shipments/:id',
    v2Route(deps, {
      scope: 'inbound_shipments_read',
      handle: async ({ params, graphql }) => {
        const data = await graphql<{ inboundShipment: InboundShipmentIn | null }>(GET_SHIPMENT, { storeId: params.storeId, id: params.id });
        if (!data.inboundShipment) throw notFound('inbound-shipment-not-found', `Inbound shipment ${params.id} was not found.`);
        return { status: 200, body: { inbound_shipment: inboundShipmentJson(data.inboundShipment) } };
      },
    }),
  );

  routes.add(
    'GET',
    '/stores/:storeId/inventory-items',
    v2Route(deps, {
      scope: 'inventory_read',
      paginated: true,
      query: ['location_id', 'kind', 'sku', 'lot_number'],
      handle: async ({ params, query, page, graphql }) => {
        const f = new QueryFilters(query);
        const variables = {
          storeId: params.storeId,
          first: page.first,
          after: page.after,
          locationId: f.text('location_id'),
          kind: f.oneOf('kind', Object.values(InventoryKind)),
          sku: f.text('sku'),
          lotNumber: f.text('lot_number'),
        };
        f.check();
        const data = await graphql<{ inventoryItems: { edges: { node: InventoryItemIn }[]; pageInfo: PageInfo } }>(LIST_ITEMS, variables);
        return {
          status: 200,
          body: { inventory_items: data.inventoryItems.edges.map((e) => inventoryItemJson(e.node)) },
          headers: pageHeaders(data.inventoryItems.pageInfo),
        };
      },
    }),
  );

  routes.add(
    'GET',
    '/stores/:storeId/inventory-items/:id',
    v2Route(deps, {
      scope: 'inventory_read',
      handle: async ({ params, graphql }) => {
        const data = await graphql<{ inventoryItem: InventoryItemIn | null }>(GET_ITEM, { storeId: params.storeId, id: params.id });
        if (!data.inventoryItem) throw notFound('inventory-item-not-found', `Inventory item ${params.id} was not found.`);
        return { status: 200, body: { inventory_item: inventoryItemJson(data.inventoryItem) } };
      },
    }),
  );
}
