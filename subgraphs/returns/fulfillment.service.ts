import type { EntityManager } from '@mikro-orm/postgresql';
import { BulkInsert } from '../../platform/db/bulk-insert.js';
import { sql, type Orm } from '../../platform/db/orm.js';
import { AppError, notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { check, Violations } from '../../platform/validation/index.js';
import { applyTrackingEntry, defaultMessage, estimatedDate, initialStatus, unfulfilledUnits, type FulfillmentStatus, type PostedStatus } from './fulfillment.rules.js';
import { fulfilledUnits, type FulfillmentReads, type FulfillmentRow } from './fulfillment.rows.js';
import { CreateFulfillmentSchema, FulfillmentStatusSchema, type TrackingLocation } from './fulfillment.schemas.js';
import { OrderUpdated, type OrderEvents } from './order.events.js';
import { findOrder, orderNotFound } from './order.service.js';

interface TrackingEntry {
  status: string;
  message: string;
  at: Date;
  location: TrackingLocation | null;
}

const FULFILLMENT_LINES = new BulkInsert<{ fulfillmentId: string; lineId: string; position: number; quantity: number }>('fulfillment_line', [
  { name: 'fulfillment_id', type: 'text', value: (l) => l.fulfillmentId },
  { name: 'order_line_item_id', type: 'text', value: (l) => l.lineId },
  { name: 'position', type: 'int', value: (l) => l.position },
  { name: 'quantity', type: 'int', value: (l) => l.quantity },
]);

const fulfillmentNotFound = (id: string) => notFound('fulfillment-not-found', `The order has no fulfillment ${id}.`);

/** Whether two fulfillments ship the same units of the same lines. */
const sameLines = (a: readonly { id: string; quantity: number }[], b: readonly { id: string; quantity: number }[]) =>
  a.length === b.length && a.every((x) => b.some((y) => y.id === x.id && y.quantity === x.quantity));

/**
 * Fulfillments of orders (the real platform's orders API): what shipped of which lines, with its
 * tracking. Each change runs under the order's row lock (so fulfilments and returns of one order
 * are counted one at a time) and publishes `order.updated` in its transaction.
 */
export class FulfillmentService {
  constructor(
    private readonly orm: Orm,
    private readonly reads: FulfillmentReads,
    private readonly events: OrderEvents,
  ) {}

  /**
   * Ships units of an order's lines. A line that is not the order's, or more units than are left
   * to fulfil, refuses the whole request (400, nothing written). The same `fulfillmentId` again
   * answers that fulfillment as it is when it ships the same units (a retry), 409 otherwise.
   */
  async create(storeId: string, orderReference: string, raw: unknown): Promise<{ fulfillment: FulfillmentRow; created: boolean }> {
    const body = check(CreateFulfillmentSchema, raw, { detail: 'The fulfillment is invalid.' });
    return this.orm.em.fork().transactional(async (em) => {
      const orderId = await findOrder(em, storeId, orderReference, { byName: false, lock: true });
      if (!orderId) throw orderNotFound(orderReference);
      if (body.fulfillmentId !== undefined) {
        const existing = await this.reads.find(em, orderId, body.fulfillmentId);
        if (existing) {
          if (sameLines(existing.lines.map((l) => ({ id: l.lineExternalId, quantity: l.quantity })), body.lineItems)) return { fulfillment: existing, created: false };
          throw new AppError('conflict', 'fulfillment-exists', `The order already has a fulfillment ${body.fulfillmentId}, of other units.`);
        }
      }
      const lines = await sql<{ id: string; externalId: string; quantity: number }>(
        em,
        'select id, external_id as "externalId", quantity from order_line_item where order_id = $1 and removed_at is null',
        [orderId],
      );
      const byExternal = new Map(lines.map((l) => [l.externalId, l]));
      const done = await fulfilledUnits(em, orderId);
      const violations = new Violations();
      body.lineItems.forEach((item, i) => {
        const line = byExternal.get(item.id);
        if (!line) return violations.add(`/lineItems/${i}/id`, 'is not a line item of the order');
        const left = unfulfilledUnits(line.quantity, done.byLine.get(line.id) ?? 0);
        if (item.quantity > left) violations.add(`/lineItems/${i}/quantity`, `exceeds the ${left} unit(s) of the line left to fulfil`);
      });
      violations.throwIfAny('The fulfillment is invalid.');

      const id = newId('fulfillment');
      const dummy = body.useDummyTracking ? body.initialTracking : undefined;
      const entries: TrackingEntry[] = dummy
        ? [{ status: dummy.status, message: dummy.message ?? defaultMessage(dummy.status), at: dummy.datetime ? new Date(dummy.datetime) : new Date(), location: dummy.location ?? null }]
        : [];
      const status = initialStatus(body.tracking, dummy?.status);
      const deliveredAt = status === 'delivered' ? (entries[0]?.at ?? new Date()) : null;
      await sql(
        em,
        `insert into fulfillment (id, store_id, order_id, external_id, status, tracking_company, tracking_number, estimated_delivery_date, delivered_at, status_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          id,
          storeId,
          orderId,
          body.fulfillmentId ?? id,
          status,
          body.tracking?.carrier ?? null,
          body.tracking?.code ?? null,
          dummy?.estimatedDeliveryDate ? estimatedDate(dummy.estimatedDeliveryDate) : null,
          deliveredAt,
          entries[0]?.at ?? null,
        ],
      );
      await FULFILLMENT_LINES.run(em, body.lineItems.map((item, position) => ({ fulfillmentId: id, lineId: byExternal.get(item.id)!.id, position, quantity: item.quantity })));
      await this.record(em, id, entries);
      await this.touchOrder(em, orderId);
      await this.events.emit(em, OrderUpdated, orderId);
      return { fulfillment: (await this.reads.find(em, orderId, body.fulfillmentId ?? id))!, created: true };
    });
  }

  /**
   * A carrier's update of a fulfillment: a status moves it (unless a newer one already did), an
   * event is recorded only; either may set the estimated delivery date, and each adds one entry to
   * the tracking history.
   */
  async updateStatus(storeId: string, orderReference: string, fulfillmentId: string, raw: unknown): Promise<FulfillmentRow> {
    const body = check(FulfillmentStatusSchema, raw, { detail: 'The shipment status is invalid.' });
    return this.orm.em.fork().transactional(async (em) => {
      const orderId = await findOrder(em, storeId, orderReference, { byName: false, lock: true });
      if (!orderId) throw orderNotFound(orderReference);
      const current = await this.reads.find(em, orderId, fulfillmentId, true);
      if (!current) throw fulfillmentNotFound(fulfillmentId);
      const entry: TrackingEntry = {
        status: body.status,
        message: body.message ?? defaultMessage(body.status),
        at: body.datetime ? new Date(body.datetime) : new Date(),
        location: body.location ?? null,
      };
      const state = applyTrackingEntry(
        { status: current.status, statusAt: current.statusAt && new Date(current.statusAt), deliveredAt: current.deliveredAt && new Date(current.deliveredAt) },
        { status: body.status as PostedStatus, at: entry.at },
      );
      await sql(
        em,
        `update fulfillment set status = $2, status_at = $3, delivered_at = $4, estimated_delivery_date = coalesce($5::date, estimated_delivery_date), updated_at = now()
          where id = $1`,
        [current.id, state.status satisfies FulfillmentStatus, state.statusAt, state.deliveredAt, body.estimatedDeliveryDate ? estimatedDate(body.estimatedDeliveryDate) : null],
      );
      await this.record(em, current.id, [entry]);
      await this.touchOrder(em, orderId);
      await this.events.emit(em, OrderUpdated, orderId);
      return (await this.reads.find(em, orderId, fulfillmentId))!;
    });
  }

  private async record(em: EntityManager, fulfillmentId: string, entries: readonly TrackingEntry[]): Promise<void> {
    if (!entries.length) return;
    await sql(
      em,
      `insert into fulfillment_event (id, fulfillment_id, status, message, at, location)
       select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::jsonb[])`,
      [
        entries.map(() => newId('fulfillmentEvent')),
        entries.map(() => fulfillmentId),
        entries.map((e) => e.status),
        entries.map((e) => e.message),
        entries.map((e) => e.at),
        entries.map((e) => (e.location ? JSON.stringify(e.location) : null)),
      ],
    );
  }

  /** An order changes when its fulfillments do (lists, webhooks' `updated`). */
  private async touchOrder(em: EntityManager, orderId: string): Promise<void> {
    await sql(em, 'update "order" set updated_at = now() where id = $1', [orderId]);
  }
}
