import { heavySql, type HeavyReads } from '../../platform/db/replica.js';

/** Units on hand of one kind at one location. */
export interface OnHandRow {
  locationId: string;
  locationName: string;
  kind: string;
  units: number;
}

/** Units in transit expected on one date (null: no date), over the shipments expected then. */
export interface InboundRow {
  date: string | null;
  shipments: number;
  units: number;
}

/** The reads behind `inventoryStats`: stock levels as they stand, and what in-transit shipments still bring. */
export class InventoryStatsReads {
  constructor(private readonly reads: HeavyReads) {}

  /** Through each location of the store to its levels with stock (the partial kind index). */
  async onHand(storeId: string): Promise<OnHandRow[]> {
    return heavySql<OnHandRow>(this.reads, `select loc.id as "locationId", loc.name as "locationName", l.kind, sum(l.quantity)::float8 as units
         from location loc join inventory_level l on l.location_id = loc.id and l.quantity > 0
        where loc.store_id = $1 group by loc.id, loc.name, l.kind order by loc.name, loc.id, l.kind`,
      [storeId],
    );
  }

  /** In-transit shipments' outstanding units per expected arrival date. */
  async inbound(storeId: string): Promise<InboundRow[]> {
    return heavySql<InboundRow>(this.reads, `select to_char(s.estimated_arrival_date, 'YYYY-MM-DD') as date, count(distinct s.id)::int as shipments,
              sum(i.quantity - i.received_quantity - i.damaged_quantity - i.missing_quantity)::float8 as units
         from inbound_shipment s join inbound_shipment_item i on i.shipment_id = s.id
        where s.store_id = $1 and s.status in ('IN_TRANSIT', 'PARTIALLY_RECEIVED')
        group by s.estimated_arrival_date`,
      [storeId],
    );
  }
}
