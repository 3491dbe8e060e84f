import { sql, type EntityManager, type Orm } from '../../../platform/db/orm.js';
import { createConsumerQueue, outboxConsumer, startOutboxConsumer } from '../../../platform/jobs/outbox-consumers.js';
import { isEventOf, type DataOf, type OutboxEvent } from '../../../platform/jobs/outbox.js';
import { RETRIES, type PgBoss } from '../../../platform/jobs/queue.js';
import type { Logger } from '../../../platform/observability/logger.js';
import type { EventInbox } from '../event-inbox.service.js';
import { returnTriggerJobs } from '../flows/return-trigger.js';
import { OrderCreated, OrderDeleted, OrderUpdated, ReturnCreated, ReturnUpdated } from '../../returns/public.js';

/**
 * The segments' view of returns and orders (Migration20270110000700_customer_returns): the returns
 * subgraph's outbox events, applied in commit order in the transaction that moves this consumer's
 * position, so each change is counted exactly once. A row keeps what a return condition asks
 * (status, reasons, active units, creation time) and whom it belongs to (the order's email, lower
 * case, and phone), nothing else of the return.
 */
export const CUSTOMER_RETURNS_CONSUMER = outboxConsumer('customer-returns', [ReturnCreated, ReturnUpdated, OrderCreated, OrderUpdated, OrderDeleted]);

interface ReturnFact {
  id: string;
  storeId: string;
  email: string | null;
  phone: string | null;
  status: string;
  reasons: string[];
  units: number;
  createdAt: string;
  sequence: number;
}

interface OrderFact {
  id: string;
  storeId: string;
  email: string | null;
  phone: string | null;
  units: number;
  createdAt: string;
  sequence: number;
  deleted: boolean;
}

const lower = (email: string | null | undefined) => (email ? email.toLowerCase() : null);

/** The last state of each subject in a batch (events come in commit order). */
function latest<T extends { id: string }>(facts: T[]): T[] {
  return [...new Map(facts.map((f) => [f.id, f])).values()];
}

/** What the segments keep of a return, from its document (an event's payload, or a backfill's page). */
export function returnFact(storeId: string, returnId: string, data: DataOf<typeof ReturnCreated>, sequence: number): ReturnFact {
  const { return: ret, order } = data;
  return {
    id: returnId,
    storeId,
    email: lower(order.customer.emailAddress),
    phone: order.customer.phoneNumber ?? null,
    status: ret.status,
    reasons: [...new Set(ret.items.map((i) => i.reason))],
    units: ret.items.reduce((sum, i) => sum + i.quantity, 0),
    createdAt: ret.createdAt,
    sequence,
  };
}

/** What the segments keep of an order, from its document. */
export function orderFact(storeId: string, orderId: string, data: DataOf<typeof OrderCreated>, sequence: number, deleted = false): OrderFact {
  const { order } = data;
  return {
    id: orderId,
    storeId,
    email: lower(order.customer.email),
    phone: order.customer.phoneNumber,
    units: order.lineItems.reduce((sum, l) => sum + l.quantity, 0),
    createdAt: order.createdAt,
    sequence,
    deleted,
  };
}

/**
 * How a row that is already there is treated: an event's state replaces it unless the row holds a
 * later one (`newer`); a backfill's never replaces it (`missing`: see customer-returns.backfill.ts).
 */
type Conflict = 'newer' | 'missing';

export async function writeReturnFacts(em: EntityManager, r: readonly ReturnFact[], conflict: Conflict): Promise<void> {
  if (!r.length) return;
  await sql(
    em,
    `insert into customer_return as t (return_id, store_id, email, phone, status, reasons, units, created_at, sequence)
     select id, store_id, email, phone, status, array(select jsonb_array_elements_text(reasons)), units, created_at, sequence
       from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::int[], $8::timestamptz[], $9::bigint[])
         as u(id, store_id, email, phone, status, reasons, units, created_at, sequence)
     ${
       conflict === 'missing'
         ? 'on conflict (return_id) do nothing'
         : `on conflict (return_id) do update set email = excluded.email, phone = excluded.phone, status = excluded.status, reasons = excluded.reasons,
       units = excluded.units, created_at = excluded.created_at, sequence = excluded.sequence
     where t.sequence <= excluded.sequence`
     }`,
    [r.map((f) => f.id), r.map((f) => f.storeId), r.map((f) => f.email), r.map((f) => f.phone), r.map((f) => f.status), r.map((f) => JSON.stringify(f.reasons)), r.map((f) => f.units), r.map((f) => f.createdAt), r.map((f) => f.sequence)],
  );
}

export async function writeOrderFacts(em: EntityManager, kept: readonly OrderFact[], conflict: Conflict): Promise<void> {
  if (!kept.length) return;
  await sql(
    em,
    `insert into customer_order as t (order_id, store_id, email, phone, units, created_at, sequence)
     select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::timestamptz[], $7::bigint[])
     ${
       conflict === 'missing'
         ? 'on conflict (order_id) do nothing'
         : `on conflict (order_id) do update set email = excluded.email, phone = excluded.phone, units = excluded.units, created_at = excluded.created_at, sequence = excluded.sequence
     where t.sequence <= excluded.sequence`
     }`,
    [kept.map((f) => f.id), kept.map((f) => f.storeId), kept.map((f) => f.email), kept.map((f) => f.phone), kept.map((f) => f.units), kept.map((f) => f.createdAt), kept.map((f) => f.sequence)],
  );
}

/**
 * Applies a batch in the consumer's transaction: the segments' rows, and the return.statusChanged
 * events of the status changes, accepted into the inbox (flows/return-trigger.ts).
 */
async function applyCustomerReturns(em: EntityManager, events: readonly OutboxEvent[], inbox: Pick<EventInbox, 'accept'>): Promise<void> {
  const triggers = returnTriggerJobs(events);
  if (triggers.length) await inbox.accept(triggers, em);
  const returns: ReturnFact[] = [];
  const orders: OrderFact[] = [];
  for (const event of events) {
    const sequence = event.sequence ?? 0;
    if (isEventOf(ReturnCreated, event) || isEventOf(ReturnUpdated, event)) {
      returns.push(returnFact(event.storeId, event.subjectId, event.data, sequence));
    } else if (isEventOf(OrderCreated, event) || isEventOf(OrderUpdated, event) || isEventOf(OrderDeleted, event)) {
      orders.push(orderFact(event.storeId, event.subjectId, event.data, sequence, isEventOf(OrderDeleted, event)));
    }
  }
  await writeReturnFacts(em, latest(returns), 'newer');
  const o = latest(orders);
  await writeOrderFacts(
    em,
    o.filter((f) => !f.deleted),
    'newer',
  );
  const gone = o.filter((f) => f.deleted);
  if (gone.length) await sql(em, 'delete from customer_order where order_id = any($1::text[])', [gone.map((f) => f.id)]);
}

export async function createCustomerReturnsQueue(boss: PgBoss): Promise<void> {
  await createConsumerQueue(boss, CUSTOMER_RETURNS_CONSUMER, { ...RETRIES.flowTriggers, expireInSeconds: 120 });
}

export function startCustomerReturnsConsumer(orm: Orm, boss: PgBoss, logger: Logger, inbox: Pick<EventInbox, 'accept'>): Promise<() => Promise<void>> {
  return startOutboxConsumer({ declaration: CUSTOMER_RETURNS_CONSUMER, orm, boss, logger, batchSize: 500, idleMs: 50, apply: (em, events) => applyCustomerReturns(em, events, inbox) });
}
