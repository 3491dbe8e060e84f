import type { PageRequest, Page } from '../../../platform/api/pagination.js';
import { Conditions, keysetPage } from '../../../platform/db/keyset.js';
import type { Orm } from '../../../platform/db/orm.js';

/** A line of a customer's timeline as listed: an event ('E') or a message ('M'), by id. */
export interface TimelineRow {
  id: string;
  source: 'E' | 'M';
}

/**
 * One keyset page of a customer's timeline, newest first: their events (by eventTimestamp; a
 * return's status changes are events of theirs: return.statusChanged) and, with `messages`, the
 * messages sent to them (by creation), each branch reading its (customer, time) index.
 */
export async function timelinePage(orm: Orm, customerId: string, bounds: { since?: Date; until?: Date; messages: boolean }, page: PageRequest): Promise<Page<TimelineRow>> {
  const c = new Conditions();
  const customer = c.p(customerId);
  const eventTime = new Conditions(c.params).when(bounds.since, (v) => `e.event_timestamp >= ${v}`, 'timestamptz').when(bounds.until, (v) => `e.event_timestamp < ${v}`, 'timestamptz');
  const messageTime = new Conditions(c.params).when(bounds.since, (v) => `m.created_at >= ${v}`, 'timestamptz').when(bounds.until, (v) => `m.created_at < ${v}`, 'timestamptz');
  const and = (x: Conditions) => x.clauses.map((clause) => ` and ${clause}`).join('');
  const branches = [`select e.id, e.event_timestamp as at, 'E' as source from custom_event e where e.customer_id = ${customer}${and(eventTime)}`];
  if (bounds.messages) branches.push(`select m.id, m.created_at as at, 'M' as source from message m where m.customer_id = ${customer}${and(messageTime)}`);
  return keysetPage<TimelineRow>(orm.em.fork(), { columns: 't.id, t.source', from: `(${branches.join(' union all ')}) t`, where: c, sortColumn: 't.at', idColumn: 't.id', page });
}
