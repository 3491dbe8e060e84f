import { Decimal } from '../../../platform/money.js';
import { newId } from '../../../platform/ids.js';
import type { FieldError } from '../../../platform/errors.js';
import { isEventOf, type OutboxEvent } from '../../../platform/jobs/outbox.js';
import { ReturnCreated, ReturnUpdated, RETURN_STATUSES } from '../../returns/public.js';
import { validateEvent } from '../custom-event.schemas.js';
import type { CustomEventJob } from '../event-ingestion.service.js';
import type { PropertyCondition } from '../segments/segment.rules.js';

/**
 * Flows started by return outcomes (decisions section 22). Every change of a return's status is in
 * the outbox with its previous status (return.created, return.updated); the customer-returns
 * consumer turns each one into a `return.statusChanged` event of the order's customer (by the
 * order's email or phone, as identity resolution finds or makes them), accepted into the events'
 * inbox in the transaction that consumes it. From there it is an event like any other: stored
 * once (its uniqueId is the outbox event's id), a trigger for flows with `where` conditions on the
 * properties below, a line of the customer's timeline, counted by eventStats. Clients cannot send
 * events of this name. Its flows' messages are transactional (about an order the customer made),
 * not marketing.
 */
export const RETURN_STATUS_CHANGED = 'return.statusChanged';

/** The properties of a `return.statusChanged` event, what its trigger conditions may name. */
const RETURN_TRIGGER_PROPERTIES = {
  returnId: 'the return id',
  orderName: "the order's name",
  status: 'the new status',
  previousStatus: 'the status before (absent on creation)',
  type: 'return, warranty, ...',
  reason: "the first item's reason",
  reasons: "every item's reason, comma-separated (CONTAINS)",
  outcome: "the first item's processing outcome (absent until processed)",
  outcomes: "every item's outcome, comma-separated",
  units: 'units in the active items',
  refundTotal: 'refunds, in the return currency',
  storeCreditTotal: 'store credit',
  exchangeTotal: 'exchanges',
  currency: "the order's currency",
} as const;

/** Whether a flow's messages are transactional: those of return triggers are. */
export function isTransactionalTrigger(eventName: string): boolean {
  return eventName === RETURN_STATUS_CHANGED;
}

/** The editor's checks of a return trigger's conditions: known properties, statuses that exist. */
export function returnTriggerErrors(eventName: string | undefined, where: readonly PropertyCondition[], pointer: string): FieldError[] {
  if (eventName?.trim() !== RETURN_STATUS_CHANGED) return [];
  const errors: FieldError[] = [];
  const statuses: ReadonlySet<string> = new Set(RETURN_STATUSES);
  where.forEach((w, i) => {
    if (!Object.hasOwn(RETURN_TRIGGER_PROPERTIES, w.key)) errors.push({ pointer: `${pointer}/${i}/key`, detail: `a return trigger has ${Object.keys(RETURN_TRIGGER_PROPERTIES).join(', ')}` });
    else if ((w.key === 'status' || w.key === 'previousStatus') && (w.operator === 'EQUALS' || w.operator === 'NOT_EQUALS') && !statuses.has(w.value as string)) {
      errors.push({ pointer: `${pointer}/${i}/value`, detail: `must be a return status (${[...statuses].join(', ')})` });
    }
  });
  return errors;
}

const joined = (values: readonly (string | null)[]) => [...new Set(values.filter((v): v is string => !!v))].join(',');

/** The events to accept for a batch of outbox events: one per status change of a return whose order names a customer. */
export function returnTriggerJobs(events: readonly OutboxEvent[]): CustomEventJob[] {
  const jobs: CustomEventJob[] = [];
  for (const event of events) {
    if (!isEventOf(ReturnCreated, event) && !isEventOf(ReturnUpdated, event)) continue;
    const { return: ret, order, previousStatus } = event.data;
    if (previousStatus === ret.status) continue;
    const email = order.customer.emailAddress || undefined;
    const phoneNumber = order.customer.phoneNumber || undefined;
    if (!email && !phoneNumber) continue;
    const sum = (type: string) => ret.items.filter((i) => i.refund.type === type).reduce((total, i) => total.plus(i.refund.amount.amount), new Decimal(0)).toNumber();
    const currency = ret.items[0]?.refund.amount.currency;
    const body = {
      eventName: RETURN_STATUS_CHANGED,
      // The order's names fill the profile (patch semantics: an absent one keeps what is stored).
      customer: { ...(email && { email }), ...(phoneNumber && { phoneNumber }), ...(order.customer.name.given && { firstName: order.customer.name.given }), ...(order.customer.name.surname && { lastName: order.customer.name.surname }) },
      eventTimestamp: event.occurredAt,
      uniqueId: `return-status:${event.id}`,
      data: {
        returnId: ret.id,
        orderName: order.name,
        status: ret.status,
        ...(previousStatus && { previousStatus }),
        type: ret.type,
        ...(ret.items[0] && { reason: ret.items[0].reason }),
        reasons: joined(ret.items.map((i) => i.reason)),
        ...(ret.items[0]?.outcome && { outcome: ret.items[0].outcome }),
        outcomes: joined(ret.items.map((i) => i.outcome)),
        units: ret.items.reduce((n, i) => n + i.quantity, 0),
        refundTotal: sum('refund'),
        storeCreditTotal: sum('store_credit'),
        exchangeTotal: sum('exchange'),
        ...(currency && { currency }),
      },
    };
    // The order's contacts were checked when it was stored; one the events' rules refuse starts nothing.
    const valid = validateEvent(body);
    if (valid.ok) jobs.push({ eventId: newId('event'), storeId: event.storeId, receivedAt: event.occurredAt, event: valid.value, ...(event.trace && { trace: event.trace }) });
  }
  return jobs;
}
