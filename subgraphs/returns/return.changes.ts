import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Orm } from '../../platform/db/orm.js';
import { AppError, notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { check } from '../../platform/validation/index.js';
import { ReturnUpdated, type ReturnEvents } from './return.events.js';
import { assertTransition, canTransition, CLOSED_STATUSES, returnStatusForShipment, type ReturnStatus } from './return.status.js';
import type { CommentRow, ReturnView, Shipment } from './return.view.js';
import { CommentMessageSchema, ShipmentEventSchema, type ShipmentEvent } from './returns.schemas.js';

/**
 * Changes to existing returns: each runs under the return's row lock and
 * publishes `return.updated` in the same transaction.
 */
export class ReturnChanges {
  constructor(
    private readonly orm: Orm,
    private readonly events: ReturnEvents,
  ) {}

  /** Moves a return to `target` if the transition table allows it (409 otherwise). */
  async changeStatus(returnId: string, target: ReturnStatus): Promise<ReturnView> {
    return this.mutate(returnId, async (em, row) => {
      assertTransition(row.status as ReturnStatus, target);
      await this.setStatus(em, returnId, target);
    });
  }

  async approve(returnId: string): Promise<ReturnView> {
    return this.mutate(returnId, async (em, row) => {
      if (row.status !== 'pre_shipment') {
        throw new AppError('conflict', 'invalid-transition', `Only a return awaiting approval (pre_shipment) can be approved; this one is ${row.status}.`);
      }
      await this.setStatus(em, returnId, 'open');
    });
  }

  /**
   * Records a carrier tracking event: fills `shipment`/`shipments` and moves
   * the return along (open -> in_transit -> delivered) where the table allows.
   */
  async recordShipmentEvent(returnId: string, rawInput: unknown): Promise<ReturnView> {
    const input: ShipmentEvent = check(ShipmentEventSchema, rawInput, { prefix: '/input', detail: 'The shipment event is invalid.' });
    return this.mutate(returnId, async (em, row) => {
      if (row.status === 'deleted') throw new AppError('conflict', 'invalid-transition', 'A deleted return takes no shipment events.');
      const tracker = input.trackingNumber ?? null;
      const shipments: Shipment[] = [...(row.shipments ?? [])];
      const index = shipments.findIndex((s) => s.tracker === tracker && s.carrier === (input.carrier ?? null));
      const previous = index >= 0 ? shipments[index] : undefined;
      const shipment: Shipment = {
        carrier: input.carrier ?? previous?.carrier ?? null,
        status: input.status,
        tracker,
        trackingUrl: input.trackingUrl ?? previous?.trackingUrl ?? null,
        postageLabel: previous?.postageLabel ?? null,
        formLabel: previous?.formLabel ?? null,
        shipmentGroupId: previous?.shipmentGroupId ?? null,
        itemIds: previous?.itemIds ?? [],
        externalLocationId: previous?.externalLocationId ?? null,
        estimatedDeliveryDate: input.estimatedDeliveryDate ?? previous?.estimatedDeliveryDate ?? null,
        deliveredAt: input.status === 'delivered' ? (input.deliveredAt ?? new Date().toISOString()) : (previous?.deliveredAt ?? null),
      };
      if (index >= 0) shipments[index] = shipment;
      else shipments.push(shipment);
      await sql(em, `update return set shipment = $2, shipments = $3, shipment_recorded = true, updated_at = now() where id = $1`, [
        returnId,
        JSON.stringify(shipment),
        JSON.stringify(shipments),
      ]);
      const target = returnStatusForShipment(input.status);
      if (target && target !== row.status && canTransition(row.status as ReturnStatus, target)) await this.setStatus(em, returnId, target);
    });
  }

  async addComment(returnId: string, message: unknown): Promise<CommentRow> {
    const text = check(CommentMessageSchema, message, { prefix: '/comment/message', detail: 'The comment is invalid.' });
    let comment: CommentRow | undefined;
    await this.mutate(returnId, async (em) => {
      const [row] = await sql<CommentRow>(
        em,
        `insert into return_comment (id, return_id, message) values ($1, $2, $3) returning id, return_id as "returnId", message, created_at as "createdAt"`,
        [newId('comment'), returnId, text],
      );
      comment = row;
      await sql(em, 'update return set updated_at = now() where id = $1', [returnId]);
    });
    return comment!;
  }

  private async mutate(returnId: string, change: (em: EntityManager, row: { status: string; shipments: Shipment[] }) => Promise<void>): Promise<ReturnView> {
    return this.orm.em.fork().transactional(async (em) => {
      const [row] = await sql<{ status: string; shipments: Shipment[] }>(em, 'select status, shipments from return where id = $1 for update', [returnId]);
      if (!row) throw notFound('return-not-found', `Return ${returnId} was not found.`);
      await change(em, row);
      return this.events.emit(em, ReturnUpdated, returnId, row.status);
    });
  }

  private async setStatus(em: EntityManager, returnId: string, status: ReturnStatus): Promise<void> {
    await sql(
      em,
      `update return set status = $2, updated_at = now(), closed_at = case when $3 then coalesce(closed_at, now()) else null end, version = version + 1 where id = $1`,
      [returnId, status, CLOSED_STATUSES.includes(status)],
    );
  }
}
