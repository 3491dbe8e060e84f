import type { EntityManager } from '@mikro-orm/postgresql';
import { createHash } from 'node:crypto';
import { sql, type Orm } from '../../platform/db/orm.js';
import { AppError, invalid, notFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { Decimal } from '../../platform/money.js';
import { publishInTransaction } from '../../platform/outbox.js';
import { mapPage, toPage, type Page, type PageRequest } from '../../platform/pagination.js';
import type { PgBoss } from '../../platform/queue.js';
import { Violations } from '../../platform/validation.js';
import { LINE_COLUMNS, RETURN_COLUMNS, RETURN_ORDER, RETURN_PARTS, RETURN_SORT_AT } from './returns.sql.js';
import {
  assertTransition,
  canTransition,
  CLOSED_STATUSES,
  isReturnStatus,
  RELEASED_STATUSES,
  RETURN_STATUSES,
  returnStatusForShipment,
  type ReturnStatus,
  type ShipmentStatus,
} from './return.status.js';
import { RETURN_TYPES, validateReturn } from './return.validation.js';
import { orderView, restOrder, restReturn, returnView, type CommentRow, type OrderLineRow, type OrderRow, type ReturnItemRow, type ReturnRow, type ReturnView, type Shipment } from './return.view.js';
import type { StoreSettingsService } from './store-settings.service.js';

export interface ReturnFilters {
  status?: string;
  type?: string;
  updatedAtMin?: string;
  updatedAtMax?: string;
  createdAtMin?: string;
  createdAtMax?: string;
  providerOrderName?: string;
}

export interface ShipmentEventInput {
  status: ShipmentStatus;
  carrier?: string | null;
  trackingNumber?: string | null;
  trackingUrl?: string | null;
  estimatedDeliveryDate?: string | null;
  deliveredAt?: string | null;
}

const IDEMPOTENCY_TTL = "interval '24 hours'";
/** A claim whose request never finished (its process died) may be taken over after this long. */
const ABANDONED_CLAIM = "interval '2 minutes'";
const DATE_RE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2}))?$/i;

type Jsonified<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] };
type ReturnRowWithParts = ReturnRow & {
  sortAt: string;
  items: ReturnItemRow[];
  comments: Jsonified<CommentRow>[];
  /** Present when the query joined the order in (lookups by id; list pages share orders through a loader instead). */
  orderJson?: Jsonified<OrderRow> & { lines: OrderLineRow[] };
};

/** Builds the view from one row of the return query (with its order, when the row carries it). */
function assemble({ items, comments, orderJson, ...row }: ReturnRowWithParts): ReturnView {
  const view = returnView(row, items, comments.map((c) => ({ ...c, createdAt: new Date(c.createdAt) })));
  if (orderJson) {
    const { lines, ...order } = orderJson;
    view.prefetchedOrder = orderView({ ...order, createdAt: new Date(order.createdAt), updatedAt: new Date(order.updatedAt) }, lines);
  }
  return view;
}

/** Canonical JSON (keys sorted) so the same body hashes the same whatever its key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export class ReturnService {
  constructor(
    private readonly orm: Orm,
    private readonly boss: PgBoss,
    private readonly settings: StoreSettingsService,
  ) {}

  private em(): EntityManager {
    return this.orm.em.fork();
  }

  // ---- reads -------------------------------------------------------------

  /** Full views of the given returns, items and comments included: one query whatever their number. */
  async views(ids: readonly string[], em: EntityManager = this.em()): Promise<ReturnView[]> {
    if (ids.length === 0) return [];
    const rows = await sql<ReturnRowWithParts>(em, `select ${RETURN_COLUMNS}, ${RETURN_SORT_AT}, ${RETURN_PARTS}, ${RETURN_ORDER} from return r join "order" o on o.id = r.order_id where r.id = any($1)`, [ids]);
    return rows.map(assemble);
  }

  async comments(returnId: string): Promise<CommentRow[]> {
    return sql<CommentRow>(this.em(), `select id, return_id as "returnId", message, created_at as "createdAt" from return_comment where return_id = $1 order by created_at, id`, [returnId]);
  }

  /** A store's returns, most recently updated first, filtered (decisions section 8). */
  async list(storeId: string, filters: ReturnFilters, page: PageRequest): Promise<Page<ReturnView>> {
    const where = ['r.store_id = $1'];
    const params: unknown[] = [storeId];
    const add = (clause: string, value: unknown) => {
      params.push(value);
      where.push(clause.replace('?', `$${params.length}`));
    };
    if (filters.status !== undefined) add('r.status = ?', filters.status);
    if (filters.type !== undefined) add('r.type = ?', filters.type);
    if (filters.updatedAtMin !== undefined) add('r.updated_at >= ?::timestamptz', filters.updatedAtMin);
    if (filters.updatedAtMax !== undefined) add('r.updated_at < ?::timestamptz', filters.updatedAtMax);
    if (filters.createdAtMin !== undefined) add('r.created_at >= ?::timestamptz', filters.createdAtMin);
    if (filters.createdAtMax !== undefined) add('r.created_at < ?::timestamptz', filters.createdAtMax);
    if (filters.providerOrderName !== undefined) add('r.order_name = ?', filters.providerOrderName);
    return this.pageWhere(where, params, page);
  }

  async listForOrder(orderId: string, page: PageRequest): Promise<Page<ReturnView>> {
    return this.pageWhere(['r.order_id = $1'], [orderId], page);
  }

  /** Returns of orders whose customer has this email (case-insensitive) or phone. */
  async listForCustomer(storeId: string, email: string | null, phone: string | null, page: PageRequest): Promise<Page<ReturnView>> {
    return this.pageWhere(['r.store_id = $1', '(lower(o.customer_email) = $2 or o.customer_phone = $3)'], [storeId, email?.toLowerCase() ?? null, phone], page);
  }

  /** Keyset page: `first + 1` rows strictly after the cursor's (updated_at, id). */
  private async pageWhere(where: string[], params: unknown[], page: PageRequest): Promise<Page<ReturnView>> {
    const values = [...params];
    const clauses = [...where];
    if (page.after) {
      values.push(page.after[0], page.after[1]);
      clauses.push(`(r.updated_at, r.id) < ($${values.length - 1}::timestamptz, $${values.length})`);
    }
    values.push(page.first + 1);
    const rows = await sql<ReturnRowWithParts>(
      this.em(),
      `select ${RETURN_COLUMNS}, ${RETURN_SORT_AT}, ${RETURN_PARTS} from return r join "order" o on o.id = r.order_id
        where ${clauses.join(' and ')} order by r.updated_at desc, r.id desc limit $${values.length}`,
      values,
    );
    return mapPage(toPage(rows, page, (row) => [row.sortAt, row.id]), assemble);
  }

  // ---- create ------------------------------------------------------------

  /**
   * Creates a return for order lines (decisions section 8). With an
   * idempotency key, the same body again replays the first result, another
   * body is 422, and a duplicate while the first is still running is 409.
   */
  async create(storeId: string, body: unknown, idempotencyKey?: string | null): Promise<{ view: ReturnView; replayed: boolean }> {
    const input = validateReturn(body);
    if (idempotencyKey === undefined || idempotencyKey === null) return { view: await this.insertReturn(storeId, input), replayed: false };
    if (idempotencyKey.length < 1 || idempotencyKey.length > 255) {
      throw invalid('validation-failed', 'The Idempotency-Key must be 1 to 255 characters.', [{ pointer: 'header#idempotency-key', detail: 'must be 1 to 255 characters' }]);
    }
    const hash = createHash('sha256').update(canonical(body)).digest('hex');
    const claim = await this.claimKey(storeId, idempotencyKey, hash);
    if (claim.returnId) {
      const [view] = await this.views([claim.returnId]);
      return { view: view!, replayed: true };
    }
    try {
      return { view: await this.insertReturn(storeId, input, idempotencyKey), replayed: false };
    } catch (err) {
      // A failed attempt is not a result to replay: free the key so the client can retry.
      await sql(this.em(), 'delete from idempotency_key where store_id = $1 and key = $2 and return_id is null', [storeId, idempotencyKey]);
      throw err;
    }
  }

  /**
   * Claims the key in its own short transaction, so a concurrent duplicate
   * sees the claim at once (409) rather than waiting on our transaction.
   */
  private async claimKey(storeId: string, key: string, hash: string): Promise<{ returnId: string | null }> {
    const em = this.em();
    await sql(em, 'delete from idempotency_key where store_id = $1 and key = $2 and expires_at < now()', [storeId, key]);
    const claimed = await sql(
      em,
      `insert into idempotency_key (store_id, key, request_hash, expires_at) values ($1, $2, $3, now() + ${IDEMPOTENCY_TTL})
       on conflict (store_id, key) do nothing returning key`,
      [storeId, key, hash],
    );
    if (claimed.length) return { returnId: null };
    const [existing] = await sql<{ requestHash: string; returnId: string | null }>(
      em,
      'select request_hash as "requestHash", return_id as "returnId" from idempotency_key where store_id = $1 and key = $2',
      [storeId, key],
    );
    if (!existing) return this.claimKey(storeId, key, hash); // expired and removed meanwhile
    if (existing.requestHash !== hash) {
      throw new AppError('unprocessable', 'idempotency-key-reused', 'This Idempotency-Key was used with a different request body.');
    }
    if (existing.returnId) return { returnId: existing.returnId };
    const takenOver = await sql(
      em,
      `update idempotency_key set claimed_at = now() where store_id = $1 and key = $2 and return_id is null and claimed_at < now() - ${ABANDONED_CLAIM} returning key`,
      [storeId, key],
    );
    if (takenOver.length) return { returnId: null };
    throw new AppError('conflict', 'idempotency-key-in-progress', 'A request with this Idempotency-Key is still being processed; retry shortly.');
  }

  private async insertReturn(storeId: string, input: ReturnType<typeof validateReturn>, idempotencyKey?: string): Promise<ReturnView> {
    return this.em().transactional(async (em) => {
      // Locking the order serialises returns against it: two creates racing for the last unit cannot both pass the check.
      const [order] = await sql<{ id: string; name: string; currency: string; customerEmail: string | null; customerPhone: string | null; firstName: string | null; lastName: string | null; shippingAddress: unknown }>(
        em,
        `select id, name, currency, customer_email as "customerEmail", customer_phone as "customerPhone", customer_first_name as "firstName",
                customer_last_name as "lastName", shipping_address as "shippingAddress"
           from "order" where store_id = $1 and provider = $2 and external_id = $3 for update`,
        [storeId, input.provider, input.externalOrderId],
      );
      if (!order) throw notFound('order-not-found', `No ${input.provider} order ${input.externalOrderId} in this store.`);
      const lines = await sql<OrderLineRow>(em, `select ${LINE_COLUMNS} from order_line_item l where l.order_id = $1 and l.removed_at is null`, [order.id]);
      const byExternal = new Map(lines.map((l) => [l.externalId, l]));
      const unknown = new Violations();
      input.items.forEach((item, i) => {
        if (!byExternal.has(item.lineItemId)) unknown.add(`/data/items/${i}/lineItemId`, `is not a line item of order ${input.externalOrderId}`);
      });
      unknown.throwIfAny('A line item is not in the order.');

      const returned = new Map(
        (
          await sql<{ lineId: string; units: number }>(
            em,
            `select i.order_line_item_id as "lineId", sum(i.quantity)::int as units from return_item i join return r on r.id = i.return_id
              where r.order_id = $1 and r.status <> all($2) and i.status = 'active' group by i.order_line_item_id`,
            [order.id, RELEASED_STATUSES],
          )
        ).map((r) => [r.lineId, r.units]),
      );
      for (const item of input.items) {
        const line = byExternal.get(item.lineItemId)!;
        const left = line.quantity - (returned.get(line.id) ?? 0);
        if (item.quantity > left) {
          throw new AppError('conflict', 'quantity-not-returnable', `Line item ${item.lineItemId}: ${item.quantity} requested, ${Math.max(left, 0)} still returnable.`);
        }
      }

      const settings = await this.settings.get(storeId, em);
      const returnId = newId('return');
      const status: ReturnStatus = settings.requireReturnApproval ? 'pre_shipment' : 'open';
      const source = {
        emailAddress: order.customerEmail,
        mailingAddress: input.shippingAddress ?? order.shippingAddress ?? null,
        name: { given: order.firstName, surname: order.lastName },
        phoneNumber: order.customerPhone,
      };
      const destination = { mailingAddress: settings.returnAddress, phoneNumber: settings.returnPhoneNumber };
      await sql(
        em,
        `insert into return (id, store_id, order_id, status, type, provider, order_name, currency, source, destination, notes, compensation_methods)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [
          returnId,
          storeId,
          order.id,
          status,
          input.type,
          input.provider,
          order.name,
          order.currency,
          JSON.stringify(source),
          JSON.stringify(destination),
          input.notes,
          [...new Set(input.items.map((i) => i.compensation))],
        ],
      );
      // Refund per unit: price plus the line's tax less its discount, spread over the ordered units.
      const items = input.items.map((item, position) => {
        const line = byExternal.get(item.lineItemId)!;
        const unit = new Decimal(line.price).plus(new Decimal(line.tax).minus(line.discount).dividedBy(line.quantity));
        return { id: newId('returnItem'), line, item, position, refund: unit.times(item.quantity).toFixed(6), value: new Decimal(line.price).times(item.quantity).toFixed(6) };
      });
      await sql(
        em,
        `insert into return_item (id, return_id, order_line_item_id, position, quantity, reason, reason_code, customer_comment, compensation, refund_amount, product_value)
         select u.id, $1, u.line, u.position, u.quantity, u.reason, u.code, u.comment, u.compensation, u.refund, u.value
           from unnest($2::text[], $3::text[], $4::int[], $5::int[], $6::text[], $7::text[], $8::text[], $9::text[], $10::numeric[], $11::numeric[])
             as u(id, line, position, quantity, reason, code, comment, compensation, refund, value)`,
        [
          returnId,
          items.map((i) => i.id),
          items.map((i) => i.line.id),
          items.map((i) => i.position),
          items.map((i) => i.item.quantity),
          items.map((i) => i.item.reason),
          items.map((i) => i.item.reasonCode),
          items.map((i) => i.item.notes),
          items.map((i) => i.item.compensation),
          items.map((i) => i.refund),
          items.map((i) => i.value),
        ],
      );
      if (idempotencyKey) {
        await sql(em, 'update idempotency_key set return_id = $3 where store_id = $1 and key = $2', [storeId, idempotencyKey, returnId]);
      }
      return this.emit(em, 'return.created', returnId, null);
    });
  }

  // ---- changes -----------------------------------------------------------

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
  async recordShipmentEvent(returnId: string, input: ShipmentEventInput): Promise<ReturnView> {
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

  async addComment(returnId: string, message: string): Promise<CommentRow> {
    const text = message.trim();
    if (!text || message.length > 5000) {
      throw invalid('validation-failed', 'The comment is invalid.', [{ pointer: '/comment/message', detail: text ? 'must be at most 5000 characters' : 'must not be empty' }]);
    }
    let comment: CommentRow | undefined;
    await this.mutate(returnId, async (em) => {
      const [row] = await sql<CommentRow>(
        em,
        `insert into return_comment (id, return_id, message) values ($1, $2, $3) returning id, return_id as "returnId", message, created_at as "createdAt"`,
        [newId('comment'), returnId, message],
      );
      comment = row;
      await sql(em, 'update return set updated_at = now() where id = $1', [returnId]);
    });
    return comment!;
  }

  /** Runs a change under the return's row lock and publishes `return.updated` in the same transaction. */
  private async mutate(returnId: string, change: (em: EntityManager, row: { status: string; shipments: Shipment[] }) => Promise<void>): Promise<ReturnView> {
    return this.em().transactional(async (em) => {
      const [row] = await sql<{ status: string; shipments: Shipment[] }>(em, 'select status, shipments from return where id = $1 for update', [returnId]);
      if (!row) throw notFound('return-not-found', `Return ${returnId} was not found.`);
      await change(em, row);
      return this.emit(em, 'return.updated', returnId, row.status);
    });
  }

  private async setStatus(em: EntityManager, returnId: string, status: ReturnStatus): Promise<void> {
    await sql(
      em,
      `update return set status = $2, updated_at = now(), closed_at = case when $3 then coalesce(closed_at, now()) else null end, version = version + 1 where id = $1`,
      [returnId, status, CLOSED_STATUSES.includes(status)],
    );
  }

  /** Publishes the return's new state (REST shapes) as an outbox event in the caller's transaction. */
  private async emit(em: EntityManager, type: 'return.created' | 'return.updated', returnId: string, previousStatus: string | null): Promise<ReturnView> {
    const [view] = await this.views([returnId], em);
    const order = view!.prefetchedOrder!;
    const settings = await this.settings.get(view!.storeId, em);
    await publishInTransaction(this.boss, em, {
      type,
      storeId: view!.storeId,
      subjectType: 'return',
      subjectId: returnId,
      data: { return: restReturn(view!), order: restOrder(order), previousStatus, destinationLocationId: settings.returnLocationId },
    });
    return view!;
  }
}

/** Validates list filters (query parameter names in pointers); `provider_order_name` has the alias `shopify_order_name`. */
export function validateFilters(filters: ReturnFilters): ReturnFilters {
  const violations = new Violations();
  if (filters.status !== undefined && !isReturnStatus(filters.status)) violations.add('query#status', `must be one of ${RETURN_STATUSES.join(', ')}`);
  if (filters.type !== undefined && !(RETURN_TYPES as readonly string[]).includes(filters.type)) violations.add('query#type', `must be one of ${RETURN_TYPES.join(', ')}`);
  const dates: [keyof ReturnFilters, string][] = [
    ['updatedAtMin', 'updated_at_min'],
    ['updatedAtMax', 'updated_at_max'],
    ['createdAtMin', 'created_at_min'],
    ['createdAtMax', 'created_at_max'],
  ];
  for (const [field, name] of dates) {
    const value = filters[field];
    if (value !== undefined && (!DATE_RE.test(value) || Number.isNaN(Date.parse(value)))) violations.add(`query#${name}`, 'must be an RFC 3339 date-time or a YYYY-MM-DD date');
  }
  violations.throwIfAny('A filter value is invalid.');
  return filters;
}
