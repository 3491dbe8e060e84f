import type { EntityManager } from '@mikro-orm/postgresql';
import { BulkInsert } from '../../platform/db/bulk-insert.js';
import { sql, type Orm } from '../../platform/db/orm.js';
import { AppError, notFound } from '../../platform/errors.js';
import { checkIdempotencyKey, withIdempotencyKey } from '../../platform/api/idempotency.js';
import { newId } from '../../platform/ids.js';
import { check, Violations } from '../../platform/validation/index.js';
import { addressOrNull, LINE_COLUMNS, type Address, type OrderLineRow } from './order.rows.js';
import { ReturnCreated, type ReturnEvents } from './return.events.js';
import { fulfilledUnits } from './fulfillment.rows.js';
import { unitsInReturns, type ReturnReads, type Shipment } from './return.rows.js';
import { itemAmounts, itemCompensation, returnableUnits, type ReturnStatus } from './return.rules.js';
import { CreateReturnSchema, type CreateReturnBody } from './return.schemas.js';
import { ReturnViews, type ReturnView } from './return.view.js';
import type { StoreSettingsService } from './store-settings.service.js';

/** A return's item as it is inserted: the order line it returns and its amounts. */
interface NewItem {
  id: string;
  line: OrderLineRow;
  item: CreateReturnBody['data']['items'][number];
  position: number;
  compensation: string;
  sameItem: boolean;
  refund: string;
  value: string;
}

const RETURN_ITEMS = new BulkInsert<NewItem & { returnId: string }>('return_item', [
  { name: 'id', type: 'text', value: (i) => i.id },
  { name: 'return_id', type: 'text', value: (i) => i.returnId },
  { name: 'order_line_item_id', type: 'text', value: (i) => i.line.id },
  { name: 'position', type: 'int', value: (i) => i.position },
  { name: 'quantity', type: 'int', value: (i) => i.item.quantity },
  { name: 'reason', type: 'text', value: (i) => i.item.reason },
  { name: 'reason_code', type: 'text', value: (i) => i.item.reasonCode ?? null },
  { name: 'customer_comment', type: 'text', value: (i) => i.item.notes ?? null },
  { name: 'compensation', type: 'text', value: (i) => i.compensation },
  { name: 'refund_amount', type: 'numeric', value: (i) => i.refund },
  { name: 'product_value', type: 'numeric', value: (i) => i.value },
  { name: 'same_item_replacement', type: 'boolean', value: (i) => i.sameItem },
]);

/** Creates returns for order lines (decisions section 8). */
export class ReturnCreation {
  private readonly views: ReturnViews;

  constructor(
    private readonly orm: Orm,
    reads: ReturnReads,
    private readonly events: ReturnEvents,
    private readonly settings: StoreSettingsService,
  ) {
    this.views = new ReturnViews(reads);
  }

  /**
   * With an idempotency key, the same body again replays the first result
   * (`replayed`), another body is 422, and a duplicate while the first is
   * still running is 409 (platform/api/idempotency.ts).
   */
  async create(storeId: string, body: unknown, idempotencyKey?: string | null): Promise<{ view: ReturnView; replayed: boolean }> {
    const input = check(CreateReturnSchema, body, { detail: 'The return is invalid.' });
    const key = checkIdempotencyKey(idempotencyKey);
    return this.orm.em.fork().transactional(async (em) => {
      if (!key) return { view: await this.insert(em, storeId, input), replayed: false };
      const keyed = await withIdempotencyKey(em, { storeId, key, body }, async () => {
        const view = await this.insert(em, storeId, input);
        return { value: view, resultId: view.id };
      });
      if (keyed.kind === 'created') return { view: keyed.value, replayed: false };
      const [view] = await this.views.byIds([keyed.resultId], em);
      return { view: view!, replayed: true };
    });
  }

  private async insert(em: EntityManager, storeId: string, { data }: CreateReturnBody): Promise<ReturnView> {
    // Locking the order serialises returns against it: two creates racing for the last unit cannot both pass the check.
    const [order] = await sql<{ id: string; name: string; currency: string; customerEmail: string | null; customerPhone: string | null; firstName: string | null; lastName: string | null; shippingAddress: Address | null }>(
      em,
      `select id, name, currency, customer_email as "customerEmail", customer_phone as "customerPhone",
              coalesce(customer_first_name, case when customer_last_name is null then customer_name end) as "firstName",
              customer_last_name as "lastName", shipping_address as "shippingAddress"
         from "order" where store_id = $1 and provider = $2 and external_id = $3 and imported_at is null for update`,
      [storeId, data.provider, data.externalOrderId],
    );
    if (!order) throw notFound('order-not-found', `No ${data.provider} order ${data.externalOrderId} in this store.`);
    const lines = await sql<OrderLineRow>(em, `select ${LINE_COLUMNS} from order_line_item l where l.order_id = $1 and l.removed_at is null`, [order.id]);
    const byExternal = new Map(lines.map((l) => [l.externalId, l]));
    const unknown = new Violations();
    data.items.forEach((item, i) => {
      if (!byExternal.has(item.lineItemId)) unknown.add(`/data/items/${i}/lineItemId`, `is not a line item of order ${data.externalOrderId}`);
    });
    unknown.throwIfAny('A line item is not in the order.');

    const held = new Map((await unitsInReturns(em, order.id)).map((r) => [r.lineId, r.units]));
    // An order that reports fulfillments returns what shipped; one that reports none, what was ordered.
    const shipped = await fulfilledUnits(em, order.id);
    for (const item of data.items) {
      const line = byExternal.get(item.lineItemId)!;
      const left = returnableUnits(line.quantity, held.get(line.id) ?? 0, shipped.reported ? (shipped.byLine.get(line.id) ?? 0) : null);
      if (item.quantity > left) {
        const basis = shipped.reported ? ` (${shipped.byLine.get(line.id) ?? 0} fulfilled)` : '';
        throw new AppError('conflict', 'quantity-not-returnable', `Line item ${item.lineItemId}: ${item.quantity} requested, ${left} still returnable${basis}.`);
      }
    }

    const settings = await this.settings.get(storeId, em);
    const returnId = newId('return');
    const status: ReturnStatus = settings.requireReturnApproval ? 'pre_shipment' : 'open';
    const items = data.items.map((item, position): NewItem => {
      const line = byExternal.get(item.lineItemId)!;
      const { refund, productValue: value } = itemAmounts(line, item.quantity);
      return {
        id: newId('returnItem'),
        line,
        item,
        position,
        compensation: itemCompensation(item.compensation),
        sameItem: item.compensation === 'same_item_replacement',
        refund,
        value,
      };
    });
    const source = {
      emailAddress: order.customerEmail,
      mailingAddress: addressOrNull(data.shippingAddress) ?? order.shippingAddress ?? null,
      name: { given: order.firstName, surname: order.lastName },
      phoneNumber: order.customerPhone,
    };
    const destination = { mailingAddress: settings.returnAddress, phoneNumber: settings.returnPhoneNumber };
    // A label the client already bought is the return's first shipment, carrying every item.
    const shipment: Shipment | null = data.label
      ? {
          carrier: data.label.carrier ?? null,
          status: 'label_created',
          tracker: data.label.trackingNumber,
          trackingUrl: data.label.trackingUrl ?? null,
          postageLabel: data.label.postageLabelUrl ?? null,
          formLabel: data.label.formLabelUrl ?? null,
          shipmentGroupId: data.label.originalShipmentId ?? null,
          itemIds: items.map((i) => i.id),
          externalLocationId: null,
          estimatedDeliveryDate: null,
          deliveredAt: null,
        }
      : null;
    await sql(
      em,
      `insert into return (id, store_id, order_id, status, type, provider, order_name, currency, source, destination, notes, compensation_methods, shipment, shipments)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        returnId,
        storeId,
        order.id,
        status,
        data.type ?? 'return',
        data.provider,
        order.name,
        order.currency,
        JSON.stringify(source),
        JSON.stringify(destination),
        data.notes ?? null,
        [...new Set(items.map((i) => i.compensation))],
        shipment && JSON.stringify(shipment),
        JSON.stringify(shipment ? [shipment] : []),
      ],
    );
    await RETURN_ITEMS.run(em, items.map((i) => ({ ...i, returnId })));
    return this.events.emit(em, ReturnCreated, returnId, null);
  }
}
