import type { EntityManager } from '@mikro-orm/postgresql';
import { inOrder } from '../../platform/graphql/loaders.js';
import type { Money } from '../../platform/money.js';
import { shipmentCounts, type ShipmentCounts } from './inbound-shipment.rules.js';
import { loadShipmentLines, loadShipmentRows, type InboundShipmentLineRow, type InboundShipmentRow } from './inbound-shipment.rows.js';
import { loadLocations, type LocationRow } from './location.rows.js';
import { loadProducts, type ProductRow } from './product.rows.js';

interface InboundShipmentItemView extends Omit<InboundShipmentLineRow, 'shipmentId' | 'productId'> {
  product: ProductRow;
}

/** A shipment with its location, costs as money and lines with their products: what resolvers return and events publish (inbound-shipment.json.ts). */
export interface InboundShipmentView
  extends Omit<InboundShipmentRow, 'freightCostAmount' | 'freightCostCurrency' | 'dutyCostAmount' | 'dutyCostCurrency'>,
    ShipmentCounts {
  location: LocationRow;
  freightCost: Money | null;
  dutyCost: Money | null;
  items: InboundShipmentItemView[];
}

function money(amount: string | null, currency: string | null): Money | null {
  return amount !== null && currency !== null ? { amount, currency } : null;
}

/** Shipments with their location and lines, in the order of `ids` (four queries whatever the number of shipments). */
export async function loadShipments(em: EntityManager, ids: readonly string[]): Promise<InboundShipmentView[]> {
  if (!ids.length) return [];
  const shipments = await loadShipmentRows(em, ids);
  const locations = await loadLocations(em, [...new Set(shipments.map((s) => s.locationId))]);
  const lines = await loadShipmentLines(em, ids);
  const products = new Map((await loadProducts(em, [...new Set(lines.map((l) => l.productId))])).map((p) => [p.id, p]));
  const locationById = new Map(locations.map((l) => [l.id, l]));
  const linesByShipment = new Map<string, InboundShipmentItemView[]>();
  for (const { shipmentId, productId, ...line } of lines) {
    linesByShipment.set(shipmentId, [...(linesByShipment.get(shipmentId) ?? []), { ...line, product: products.get(productId)! }]);
  }
  const views = shipments.map(({ freightCostAmount, freightCostCurrency, dutyCostAmount, dutyCostCurrency, ...s }): InboundShipmentView => {
    const items = linesByShipment.get(s.id) ?? [];
    return {
      ...s,
      location: locationById.get(s.locationId)!,
      freightCost: money(freightCostAmount, freightCostCurrency),
      dutyCost: money(dutyCostAmount, dutyCostCurrency),
      items,
      ...shipmentCounts(items),
    };
  });
  return inOrder(ids, views);
}
