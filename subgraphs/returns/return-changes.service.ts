import type { EntityManager } from '@mikro-orm/postgresql';
import { Conditions } from '../../platform/db/keyset.js';
import { sql, type Orm } from '../../platform/db/orm.js';
import { AppError, invalid, notFound } from '../../platform/errors.js';
import { checkIdempotencyKey, withIdempotencyKey } from '../../platform/api/idempotency.js';
import { newId } from '../../platform/ids.js';
import { enqueueInTransaction } from '../../platform/jobs/outbox.js';
import type { PgBoss } from '../../platform/jobs/queue.js';
import { check } from '../../platform/validation/index.js';
import { ReturnUpdated, type ReturnEvents } from './return.events.js';
import { COMMENT_COLUMNS, conditionSql, type CommentRow, type ReturnReads, type Shipment } from './return.rows.js';
import { assertTransition, canTransition, CLOSED_STATUSES, returnStatusForShipment, type ReturnStatus } from './return.rules.js';
import { ReturnViews, type ReturnView } from './return.view.js';
import {
  CommentContentSchema,
  ProcessBodySchema,
  RemovedLinesSchema,
  ReturnConditionSchema,
  ReturnLookupSchema,
  ShipmentEventSchema,
  type ReturnCondition,
  type ReturnLookup,
  type ShipmentEvent,
} from './return.schemas.js';

/** The queue of queued completions (`queueCompletion`), worked by this subgraph's workers. */
export const RETURN_COMPLETION_QUEUE = 'returns-completion';

export interface CompletionJob {
  returnId: string;
}

/** A change made only if a condition held: whether it was made, and the return as it now is. */
export interface ConditionalChange {
  applied: boolean;
  view: ReturnView;
}

type LockedRow = { status: string; shipments: Shipment[]; matches: boolean };

function returnNotFound(): AppError {
  return notFound('return-not-found', 'No return matches in this store.');
}

/**
 * Changes to existing returns: each runs under the return's row lock and
 * publishes `return.updated` in the same transaction.
 */
export class ReturnChanges {
  private readonly views: ReturnViews;

  constructor(
    private readonly orm: Orm,
    private readonly boss: PgBoss,
    private readonly reads: ReturnReads,
    private readonly events: ReturnEvents,
  ) {
    this.views = new ReturnViews(reads);
  }

  /** The id of the return a lookup finds in the store (404 when none). */
  async find(storeId: string, rawLookup: unknown, em?: EntityManager): Promise<string> {
    const lookup = checkLookup(rawLookup);
    const row = await this.reads.lookup(storeId, lookup, em);
    if (!row) throw returnNotFound();
    return row.id;
  }

  /** Moves the return to `target` if it meets `condition` (and the transition table allows it: 409 otherwise). */
  async changeStatusIf(storeId: string, lookup: unknown, target: ReturnStatus, condition: unknown): Promise<ConditionalChange> {
    return this.mutateIf(storeId, lookup, condition, async (em, row, returnId) => {
      assertTransition(row.status as ReturnStatus, target);
      await this.setStatus(em, returnId, target);
      return true;
    });
  }

  /**
   * Queues the return's completion if it meets `condition`: a job completes it
   * (status `complete`, with everything completing does: restock, webhooks)
   * once this commits. `detail` is kept on the return's timeline.
   */
  async queueCompletion(storeId: string, lookup: unknown, condition: unknown, detail: unknown): Promise<ConditionalChange> {
    return this.mutateIf(storeId, lookup, condition, async (em, row, returnId) => {
      assertTransition(row.status as ReturnStatus, 'complete');
      await this.enqueueCompletion(em, returnId, detail);
      return false;
    });
  }

  /**
   * Processes a return (REST `POST /returns/{id}/process`): the items named
   * rejected get that outcome at once, items rejected or with
   * `processInput.restock: false` will not be restocked, then its completion is queued exactly
   * as `queueCompletion` does (the body is kept on the timeline). A product
   * that is not an item of the return refuses the whole request (400).
   */
  async process(storeId: string, returnId: string, rawBody: unknown): Promise<ReturnView> {
    const body = check(ProcessBodySchema, rawBody, { prefix: '/input', detail: 'The processing request is invalid.' });
    const change = await this.mutateIf(storeId, { id: returnId }, null, async (em, row) => {
      const items = await sql<{ id: string }>(em, `select id from return_item where return_id = $1 and status = 'active'`, [returnId]);
      const ids = new Set(items.map((i) => i.id));
      const strangers = body.products.flatMap((p, i) => (ids.has(p._id) ? [] : [{ pointer: `/products/${i}/_id`, detail: 'is not an item of this return' }]));
      if (strangers.length) throw invalid('items-not-in-return', 'A product is not an item of this return.', strangers);
      assertTransition(row.status as ReturnStatus, 'complete');
      const rejected = body.products.filter((p) => p.reject).map((p) => p._id);
      if (rejected.length) await sql(em, `update return_item set outcome = 'rejected' where id = any($1)`, [rejected]);
      // A rejected item goes back to the customer; `processInput.restock` says for the others (default: restock).
      const restock = body.products.map((p) => ({ id: p._id, restock: !p.reject && p.processInput?.restock !== false }));
      const kept = restock.filter((r) => !r.restock).map((r) => r.id);
      if (kept.length) await sql(em, 'update return_item set restock = false where id = any($1)', [kept]);
      await this.enqueueCompletion(em, returnId, body);
      return rejected.length + kept.length > 0;
    });
    return change.view;
  }

  /**
   * Takes the items of the given order lines (by numeric id) off the return
   * at once, if it meets `condition`. A return left with no item is reset
   * (`deleted`); otherwise, with `completeAfter`, its completion is queued.
   * A line that is not an item of the return refuses the whole change (400).
   */
  async removeItems(storeId: string, lookup: unknown, rawLines: unknown, condition: unknown, completeAfter: boolean): Promise<ConditionalChange> {
    const lines = [...new Set(check(RemovedLinesSchema, rawLines, { prefix: '/orderLineNumericIds', detail: 'The order lines are invalid.' }))];
    return this.mutateIf(storeId, lookup, condition, async (em, row, returnId) => {
      const items = await sql<{ id: string; line: string }>(
        em,
        `select i.id, l.compat_id::text as line from return_item i join order_line_item l on l.id = i.order_line_item_id
          where i.return_id = $1 and i.status = 'active' and l.compat_id::text = any($2::text[])`,
        [returnId, lines],
      );
      const found = new Set(items.map((i) => i.line));
      const missing = lines.filter((l) => !found.has(l));
      if (missing.length) {
        throw invalid(
          'items-not-in-return',
          `Order line(s) ${missing.join(', ')} have no item on this return.`,
          missing.map((l) => ({ pointer: `/orderLineNumericIds/${lines.indexOf(l)}`, detail: 'has no item on this return' })),
        );
      }
      const [left] = await sql<{ n: number; compensations: string[] }>(
        em,
        `with removed as (update return_item set status = 'removed' where id = any($1) returning id)
         select count(*)::int as n, coalesce(array_agg(distinct compensation), '{}') as compensations
           from return_item where return_id = $2 and status = 'active' and id <> all(select id from removed)`,
        [items.map((i) => i.id), returnId],
      );
      await sql(em, 'update return set compensation_methods = $2, updated_at = now(), version = version + 1 where id = $1', [returnId, left!.compensations]);
      await this.timeline(em, returnId, 'items_removed', { orderLineNumericIds: lines });
      if (left!.n === 0) {
        assertTransition(row.status as ReturnStatus, 'deleted');
        await this.setStatus(em, returnId, 'deleted');
      } else if (completeAfter) {
        assertTransition(row.status as ReturnStatus, 'complete');
        await this.enqueueCompletion(em, returnId, null);
      }
      return true;
    });
  }

  /**
   * Runs a queued completion: completes the return if it still can be
   * (another change may have come first, e.g. a cancellation), else leaves
   * it as it is. Returns whether it completed it.
   */
  async completeQueued(job: CompletionJob): Promise<boolean> {
    return this.orm.em.fork().transactional(async (em) => {
      const [row] = await sql<{ status: string }>(em, 'select status from return where id = $1 for update', [job.returnId]);
      if (!row || !canTransition(row.status as ReturnStatus, 'complete')) return false;
      await this.setStatus(em, job.returnId, 'complete');
      // Processed: each item's outcome is its compensation, unless it was rejected.
      await sql(em, `update return_item set outcome = coalesce(outcome, compensation) where return_id = $1 and status = 'active'`, [job.returnId]);
      await this.timeline(em, job.returnId, 'completed', null);
      await this.events.emit(em, ReturnUpdated, job.returnId, row.status);
      return true;
    });
  }

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

  /**
   * Adds a comment: a message, an image (base64), or both. With an
   * idempotency key, the same key and content again answer the first comment
   * (and change nothing); other content is 422.
   */
  async addComment(returnId: string, message: unknown, idempotencyKey?: string | null, image?: unknown): Promise<CommentRow> {
    const content = check(CommentContentSchema, image == null ? { message } : message == null ? { image } : { message, image }, { prefix: '/comment', detail: 'The comment is invalid.' });
    const text = 'message' in content ? content.message : '';
    const picture = content.image ?? null;
    const key = checkIdempotencyKey(idempotencyKey, '/idempotencyKey');
    return this.orm.em.fork().transactional(async (em) => {
      const [row] = await sql<{ status: string; storeId: string }>(em, 'select status, store_id as "storeId" from return where id = $1 for update', [returnId]);
      if (!row) throw notFound('return-not-found', `Return ${returnId} was not found.`);
      const insert = async () => {
        const [comment] = await sql<CommentRow>(
          em,
          `insert into return_comment (id, return_id, message, image) values ($1, $2, $3, $4) returning ${COMMENT_COLUMNS}`,
          [newId('comment'), returnId, text, picture],
        );
        await sql(em, 'update return set updated_at = now() where id = $1', [returnId]);
        await this.events.emit(em, ReturnUpdated, returnId, row.status);
        return comment!;
      };
      if (!key) return insert();
      // Keys of comments live beside those of return creation: a prefix keeps the two apart.
      const keyed = await withIdempotencyKey(em, { storeId: row.storeId, key: `comment:${returnId}:${key}`, body: picture === null ? { message: text } : { message: text, image: picture } }, async () => {
        const comment = await insert();
        return { value: comment, resultId: comment.id };
      });
      if (keyed.kind === 'created') return keyed.value;
      const [first] = await sql<CommentRow>(em, `select ${COMMENT_COLUMNS} from return_comment where id = $1`, [keyed.resultId]);
      return first!;
    });
  }

  /**
   * Runs `change` under the row lock of the return the lookup finds, if the
   * condition holds for it (evaluated in the same locked read); publishes
   * `return.updated` when the change says it changed the return.
   */
  private async mutateIf(
    storeId: string,
    rawLookup: unknown,
    rawCondition: unknown,
    change: (em: EntityManager, row: LockedRow, returnId: string) => Promise<boolean>,
  ): Promise<ConditionalChange> {
    const condition: ReturnCondition | null = rawCondition == null ? null : check(ReturnConditionSchema, rawCondition, { prefix: '/onlyIf', detail: 'The condition is invalid.' });
    return this.orm.em.fork().transactional(async (em) => {
      const returnId = await this.find(storeId, rawLookup, em);
      const c = new Conditions([returnId]);
      conditionSql(c, condition);
      const [row] = await sql<LockedRow>(em, `select r.status, r.shipments, (${c.where}) as matches from return r where r.id = $1 for update`, c.params);
      if (!row) throw returnNotFound();
      if (!row.matches) return { applied: false, view: (await this.views.byIds([returnId], em))[0]! };
      const changed = await change(em, row, returnId);
      const view = changed ? await this.events.emit(em, ReturnUpdated, returnId, row.status) : (await this.views.byIds([returnId], em))[0]!;
      return { applied: true, view };
    });
  }

  private async enqueueCompletion(em: EntityManager, returnId: string, detail: unknown): Promise<void> {
    await this.timeline(em, returnId, 'completion_queued', detail ?? null);
    await enqueueInTransaction<CompletionJob>(this.boss, em, RETURN_COMPLETION_QUEUE, [{ returnId }]);
  }

  private async timeline(em: EntityManager, returnId: string, kind: string, detail: unknown): Promise<void> {
    await sql(em, 'insert into return_timeline (id, return_id, kind, detail) values ($1, $2, $3, $4)', [newId('timelineEntry'), returnId, kind, detail === null ? null : JSON.stringify(detail)]);
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

/** A return lookup as given: exactly one way to find the return (400 otherwise). */
export function checkLookup(raw: unknown): ReturnLookup {
  const lookup = check(ReturnLookupSchema, raw ?? {}, { prefix: '/return', detail: 'The return lookup is invalid.' });
  const given = Object.values(lookup).filter((v) => v !== undefined && v !== null).length;
  if (given !== 1) throw invalid('validation-failed', 'Find the return by exactly one of id, numericId, orderName, orderNumericId.', [{ pointer: '/return', detail: 'must give exactly one of id, numericId, orderName, orderNumericId' }]);
  return lookup;
}
