import type { EntityManager } from '@mikro-orm/postgresql';
import { Conditions, keysetPage } from '../../platform/db/keyset.js';
import { BulkInsert } from '../../platform/db/bulk-insert.js';
import { sql, type Orm } from '../../platform/db/orm.js';
import { AppError, notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { publish } from '../../platform/jobs/outbox.js';
import type { Page, PageRequest } from '../../platform/api/pagination.js';
import { check } from '../../platform/validation/index.js';
import type { CreateInboundShipmentInput, ReceiveInboundShipmentItemInput } from './inbound-shipment.input.js';
import { inboundShipmentJson } from './inbound-shipment.json.js';
import { loadShipmentLines } from './inbound-shipment.rows.js';
import { checkReceiptFits, checkReceiptReportsUnits, checkTransition, InboundShipmentStatus } from './inbound-shipment.rules.js';
import { CreateInboundShipmentSchema, ReceiveItemsSchema } from './inbound-shipment.schemas.js';
import { loadShipments, type InboundShipmentView } from './inbound-shipment.view.js';
import { byItemKey, InventoryKind, itemName } from './inventory-item.rules.js';
import { InboundShipmentCreated, InboundShipmentUpdated } from './inventory.events.js';
import { requireLocation } from './location.rows.js';
import type { ProductRow } from './product.rows.js';
import { StockWriter, type StockChange } from './stock.service.js';

export interface InboundShipmentFilters {
  status?: InboundShipmentStatus | null;
  locationId?: string | null;
  /** Inclusive. */
  createdAtMin?: Date | null;
  /** Exclusive. */
  createdAtMax?: Date | null;
}

export function inboundShipmentListFilters(storeId: string, filters: InboundShipmentFilters): Record<string, unknown> {
  return {
    list: 'inbound-shipments',
    storeId,
    status: filters.status,
    locationId: filters.locationId,
    createdAtMin: filters.createdAtMin?.toISOString(),
    createdAtMax: filters.createdAtMax?.toISOString(),
  };
}

// Moved to inbound-shipment.json.ts; re-exported only while index.ts (being rewritten) imports it from here.
export { inboundShipmentDocumentsPage } from './inbound-shipment.json.js';

/** A shipment's lines, numbered from 1 in the order given. */
const SHIPMENT_ITEMS = new BulkInsert<{ shipmentId: string; position: number; item: CreateInboundShipmentInput['items'][number] }>('inbound_shipment_item', [
  { name: 'id', type: 'text', value: () => newId('inboundShipmentItem') },
  { name: 'shipment_id', type: 'text', value: (r) => r.shipmentId },
  { name: 'position', type: 'int', value: (r) => r.position },
  { name: 'product_id', type: 'text', value: (r) => r.item.productId },
  { name: 'quantity', type: 'int', value: (r) => r.item.quantity },
]);

export class InboundShipmentService {
  constructor(private readonly orm: Orm) {}

  private em(): EntityManager {
    return this.orm.em.fork();
  }

  shipmentsByIds(ids: readonly string[]): Promise<InboundShipmentView[]> {
    return loadShipments(this.em(), ids);
  }

  async create(storeId: string, input: CreateInboundShipmentInput): Promise<InboundShipmentView> {
    check(CreateInboundShipmentSchema, input, { prefix: '/input', detail: 'The shipment is invalid.' });
    return this.em().transactional(async (em) => {
      await requireLocation(em, storeId, input.locationId);
      const productIds = input.items.map((l) => l.productId);
      const known = new Set(
        (await sql<{ id: string }>(em, 'select id from product where id = any($1) and store_id = $2', [productIds, storeId])).map((r) => r.id),
      );
      const unknown = productIds.flatMap((id, i) => (known.has(id) ? [] : [{ pointer: `/input/items/${i}/productId`, detail: `product ${id} was not found in this store` }]));
      if (unknown.length) throw new AppError('not_found', 'product-not-found', `${unknown.length} product(s) of the shipment were not found in store ${storeId}.`, { errors: unknown });
      const id = newId('inboundShipment');
      await sql(
        em,
        `insert into inbound_shipment (id, store_id, location_id, status, shipment_id, carrier, tracking_number, tracking_url,
           estimated_arrival_date, freight_type, payment_terms, freight_cost_amount, freight_cost_currency, duty_cost_amount, duty_cost_currency)
         values ($1, $2, $3, 'PENDING', $4, $5, $6, $7, $8::date, $9, $10, $11::numeric, $12, $13::numeric, $14)`,
        [
          id,
          storeId,
          input.locationId,
          input.shipmentId ?? null,
          input.carrier ?? null,
          input.trackingNumber ?? null,
          input.trackingUrl ?? null,
          input.estimatedArrivalDate ?? null,
          input.freightType ?? null,
          input.paymentTerms ?? null,
          input.freightCost?.amount ?? null,
          input.freightCost?.currency ?? null,
          input.dutyCost?.amount ?? null,
          input.dutyCost?.currency ?? null,
        ],
      );
      await SHIPMENT_ITEMS.run(em, input.items.map((item, i) => ({ shipmentId: id, position: i + 1, item })));
      return this.announce(em, id, InboundShipmentCreated);
    });
  }

  async markInTransit(id: string): Promise<InboundShipmentView> {
    return this.em().transactional(async (em) => {
      checkTransition(await this.lock(em, id), InboundShipmentStatus.IN_TRANSIT);
      await sql(em, `update inbound_shipment set status = 'IN_TRANSIT', updated_at = now() where id = $1`, [id]);
      return this.announce(em, id, InboundShipmentUpdated);
    });
  }

  /**
   * Records one receipt: each quantity adds to the line's running totals, good
   * units go to stock (kind PRODUCT at the shipment's location). The shipment
   * row is locked first, so concurrent receipts of one shipment run one after
   * the other and each sees the totals the previous one left.
   */
  async receive(id: string, items: ReceiveInboundShipmentItemInput[]): Promise<InboundShipmentView> {
    check(ReceiveItemsSchema, items, { prefix: '/items', detail: 'The receipt is invalid.' });
    checkReceiptReportsUnits(items);
    return this.em().transactional(async (em) => {
      checkTransition(await this.lock(em, id), InboundShipmentStatus.RECEIVED);
      const [shipment] = await sql<{ storeId: string; locationId: string }>(em, 'select store_id as "storeId", location_id as "locationId" from inbound_shipment where id = $1', [id]);
      // Read under the shipment's lock: the totals the previous receipt left.
      const lines = new Map((await loadShipmentLines(em, [id])).map((l) => [l.id, l]));
      checkReceiptFits(id, items, lines);
      await sql(
        em,
        `update inbound_shipment_item l
            set received_quantity = l.received_quantity + r.received, damaged_quantity = l.damaged_quantity + r.damaged,
                missing_quantity = l.missing_quantity + r.missing
           from unnest($2::text[], $3::int[], $4::int[], $5::int[]) as r(id, received, damaged, missing)
          where l.id = r.id and l.shipment_id = $1`,
        [id, items.map((i) => i.itemId), items.map((i) => i.receivedQuantity ?? 0), items.map((i) => i.damagedQuantity ?? 0), items.map((i) => i.missingQuantity ?? 0)],
      );
      // Every line accounted for: RECEIVED; anything reported: PARTIALLY_RECEIVED. actual_arrival_date on the first receipt.
      await sql(
        em,
        `update inbound_shipment s
            set status = case when not exists (select 1 from inbound_shipment_item l where l.shipment_id = s.id
                                                 and l.received_quantity + l.damaged_quantity + l.missing_quantity < l.quantity)
                              then 'RECEIVED' else 'PARTIALLY_RECEIVED' end,
                actual_arrival_date = coalesce(s.actual_arrival_date, (now() at time zone 'UTC')::date),
                updated_at = now()
          where s.id = $1`,
        [id],
      );
      const received = items.filter((i) => (i.receivedQuantity ?? 0) > 0);
      if (received.length) {
        const products = new Map(
          (await sql<Pick<ProductRow, 'id' | 'sku' | 'title' | 'variantTitle'>>(em, 'select id, sku, title, variant_title as "variantTitle" from product where id = any($1)', [received.map((i) => lines.get(i.itemId)!.productId)])).map((p) => [p.id, p]),
        );
        const changes: StockChange[] = received.map((item) => {
          const product = products.get(lines.get(item.itemId)!.productId)!;
          return {
            storeId: shipment!.storeId,
            productId: product.id,
            sku: product.sku,
            name: itemName(product),
            kind: InventoryKind.PRODUCT,
            locationId: shipment!.locationId,
            delta: item.receivedQuantity!,
          };
        });
        const writer = new StockWriter(em);
        for (const change of changes.sort(byItemKey)) await writer.apply(change);
        await writer.publish();
      }
      return this.announce(em, id, InboundShipmentUpdated);
    });
  }

  async list(storeId: string, filters: InboundShipmentFilters, page: PageRequest): Promise<Page<InboundShipmentView>> {
    const c = new Conditions();
    c.when(filters.locationId, (v) => `location_id = ${v}`)
      .and(`store_id = ${c.p(storeId)}`)
      .when(filters.status, (v) => `status = ${v}`);
    if (filters.createdAtMin) {
      const min = c.p(filters.createdAtMin);
      // updated_at >= created_at always, so the lower bound also bounds the walk down the updated_at index.
      c.and(`created_at >= ${min}`).and(`updated_at >= ${min}`);
    }
    c.when(filters.createdAtMax, (v) => `created_at < ${v}`);
    const ids = await keysetPage<{ id: string }>(this.em(), { columns: 'id', from: 'inbound_shipment', where: c, sortColumn: 'updated_at', idColumn: 'id', page });
    return { ...ids, items: await loadShipments(this.em(), ids.items.map((r) => r.id)) };
  }

  /** Locks the shipment row for the rest of the transaction and returns its status. */
  private async lock(em: EntityManager, id: string): Promise<InboundShipmentStatus> {
    const [row] = await sql<{ status: InboundShipmentStatus }>(em, 'select status from inbound_shipment where id = $1 for update', [id]);
    if (!row) throw notFound('inbound-shipment-not-found', `Inbound shipment ${id} was not found.`);
    return row.status;
  }

  private async announce(em: EntityManager, id: string, contract: typeof InboundShipmentCreated | typeof InboundShipmentUpdated): Promise<InboundShipmentView> {
    const [view] = await loadShipments(em, [id]);
    await publish(em, contract, [{ storeId: view!.storeId, subjectId: id, data: { inbound_shipment: inboundShipmentJson(view!) } }]);
    return view!;
  }
}
