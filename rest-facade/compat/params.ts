import { AppError } from '../../platform/errors.js';
import { looseInstant } from '../../platform/validation/index.js';

/** Loop's page sizes (decisions section 11). */
export const PAGE_SIZE = { min: 1, max: 750, default: 100 } as const;
/** The most returns one answer carries when a list or report is not paginated. */
export const UNPAGED_LIMIT = 10_000;
/** The longest window a list or report may cover. */
const MAX_WINDOW_DAYS = 120;
/** An open return with no shipment event ever recorded shows as expired after this many days (Loop's labels expire then). */
const EXPIRY_DAYS = 28;

const DAY_MS = 24 * 3600 * 1000;

/** A 422 in Laravel's validation shape, for one field. */
export function laravelInvalid(field: string, message: string): AppError {
  return new AppError('unprocessable', 'validation-failed', message, { errors: [{ pointer: `query#${field}`, detail: message }] });
}

/** The service's statuses behind each Loop state (decisions section 11). */
export const OPEN_STATUSES = ['pre_shipment', 'open', 'in_transit', 'delivered'] as const;
export const REVIEW_STATUSES = ['needs_review', 'in_review', 'flagged'] as const;
const CLOSED_STATUSES = ['complete', 'rejected'] as const;
const CANCELLED_STATUSES = ['deleted'] as const;

export const LOOP_STATES = ['open', 'review', 'closed', 'cancelled', 'expired'] as const;
export type LoopState = (typeof LOOP_STATES)[number];

/** The instant before which an open, never-shipped return counts as expired. */
export function expiryCutoff(now: Date): string {
  return new Date(now.getTime() - EXPIRY_DAYS * DAY_MS).toISOString();
}

/**
 * A GraphQL `DateTime` as ISO text: over HTTP it arrives as text, from the
 * in-process gateway as the `Date` the scalar serialised to.
 */
export function isoText(value: string | Date): string {
  return value instanceof Date ? value.toISOString() : new Date(value).toISOString();
}

/** A return's Loop state from its service status, whether it ever shipped, and its age. */
export function loopState(ret: { status: string; shipmentRecorded: boolean; createdAt: string | Date }, now: Date): LoopState {
  if ((REVIEW_STATUSES as readonly string[]).includes(ret.status)) return 'review';
  if ((CLOSED_STATUSES as readonly string[]).includes(ret.status)) return 'closed';
  if ((CANCELLED_STATUSES as readonly string[]).includes(ret.status)) return 'cancelled';
  if (ret.status === 'open' && !ret.shipmentRecorded && isoText(ret.createdAt) < expiryCutoff(now)) return 'expired';
  return 'open';
}

/** The service's condition for returns in a Loop state (or the list's default: open, closed and expired). */
export function stateCondition(state: LoopState | undefined, now: Date): { statuses: string[]; awaitingShipment?: { createdBefore: string; is: boolean } } {
  const expired = (is: boolean) => ({ createdBefore: expiryCutoff(now), is });
  switch (state) {
    case undefined:
      return { statuses: [...OPEN_STATUSES, ...CLOSED_STATUSES] };
    case 'open':
      return { statuses: [...OPEN_STATUSES], awaitingShipment: expired(false) };
    case 'expired':
      return { statuses: ['open'], awaitingShipment: expired(true) };
    case 'review':
      return { statuses: [...REVIEW_STATUSES] };
    case 'closed':
      return { statuses: [...CLOSED_STATUSES] };
    case 'cancelled':
      return { statuses: [...CANCELLED_STATUSES] };
  }
}

/** An instant as an RFC 3339 string with microseconds, one microsecond later (an inclusive bound made exclusive). */
function justAfter(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 23)}001Z`;
}

/** The bounds of a window as a request (or a cursor) gives them. */
export interface WindowBounds {
  from?: string;
  to?: string;
}

export interface ResolvedWindow {
  field: 'created_at' | 'updated_at';
  /** Inclusive, exclusive. */
  from: string;
  until: string;
  /**
   * The bounds as the links carry them: those the client gave, or the window
   * resolved from the clock when it gave none, so a later page resolves the same window.
   */
  bounds: WindowBounds;
}

/** What a window given by one bound, or none, covers (decisions sections 11 and 17). */
export interface WindowRules {
  days: number;
  /** `from` alone: the `days` after it (the list), or up to now (the ASN report). */
  fromAlone: 'span' | 'until-now';
}

export const LIST_WINDOW: WindowRules = { days: 1, fromAlone: 'span' };
export const ASN_WINDOW: WindowRules = { days: 7, fromAlone: 'until-now' };

/**
 * `from`/`to` as Loop reads them (decisions sections 14, 15 and 17): dates and
 * date-times as loosely as Laravel's date rule reads them, UTC without a zone;
 * a date-only `from` is that day's start, a date-only `to` includes that whole
 * day, a `to` with a time includes that instant. `to` alone is the `days`
 * before it, neither the `days` before now, `from` alone as the rules say.
 * Over 120 days, or a value that is no date, is 422.
 */
export function resolveWindow(query: WindowBounds & { filter?: string }, now: Date, rules: WindowRules): ResolvedWindow {
  const errors: { field: string; message: string }[] = [];
  const filter = query.filter ?? 'created_at';
  if (filter !== 'created_at' && filter !== 'updated_at') errors.push({ field: 'filter', message: 'The selected filter is invalid.' });
  const parse = (field: 'from' | 'to', value: string | undefined) => {
    if (value === undefined) return undefined;
    const instant = looseInstant(value);
    if (!instant) {
      errors.push({ field, message: `The ${field} field must be a valid date.` });
      return undefined;
    }
    return { ms: Math.floor(instant.epochSeconds * 1000), dateOnly: instant.dateOnly };
  };
  const from = parse('from', query.from);
  const to = parse('to', query.to);
  if (errors.length) throw validation(errors);
  const span = rules.days * DAY_MS;
  // The exclusive end: the next day's start for a date, one microsecond after an instant.
  let end: { ms: number; text: string };
  if (to) end = to.dateOnly ? { ms: to.ms + DAY_MS, text: new Date(to.ms + DAY_MS).toISOString() } : { ms: to.ms + 0.001, text: justAfter(to.ms) };
  else if (from && rules.fromAlone === 'span') end = { ms: from.ms + span, text: new Date(from.ms + span).toISOString() };
  else end = { ms: now.getTime() + 0.001, text: justAfter(now.getTime()) };
  const fromMs = from ? from.ms : Math.floor(end.ms) - span;
  if (fromMs >= end.ms) throw validation([{ field: 'to', message: 'The to field must be a date after or equal to from.' }]);
  if (end.ms - fromMs > MAX_WINDOW_DAYS * DAY_MS + 0.001) throw validation([{ field: 'from', message: `The date range between from and to may not be greater than ${MAX_WINDOW_DAYS} days.` }]);
  const given = from || to;
  const bounds: WindowBounds = given
    ? { ...(query.from !== undefined ? { from: query.from } : {}), ...(query.to !== undefined ? { to: query.to } : {}) }
    : { from: new Date(fromMs).toISOString(), to: now.toISOString() };
  return { field: filter as ResolvedWindow['field'], from: new Date(fromMs).toISOString(), until: end.text, bounds };
}

function validation(errors: { field: string; message: string }[]): AppError {
  return new AppError('unprocessable', 'validation-failed', errors[0]!.message, { errors: errors.map((e) => ({ pointer: `query#${e.field}`, detail: e.message })) });
}

/** `state` of a list: one Loop state, or none (the default set). */
export function parseState(value: string | undefined): LoopState | undefined {
  if (value === undefined) return undefined;
  if (!(LOOP_STATES as readonly string[]).includes(value)) throw laravelInvalid('state', 'The selected state is invalid.');
  return value as LoopState;
}

export interface ReturnLookup {
  id?: string;
  numericId?: string;
  orderName?: string;
  orderNumericId?: string;
}

const NUMBER = /^[1-9]\d{0,17}$/;

/**
 * Which return a request names (decisions section 11): `service_return_id`,
 * `order_name` or `order_id` in the query (the path id is then a placeholder),
 * else the numeric path id. Undefined when nothing names a return that can
 * exist (a number that is not one matches nothing).
 */
export function identify(pathId: string | undefined, query: { service_return_id?: string; order_name?: string; order_id?: string; return_id?: string }): ReturnLookup | undefined {
  if (query.service_return_id) return { id: query.service_return_id };
  if (query.order_name) return { orderName: query.order_name };
  if (query.order_id) return NUMBER.test(query.order_id) ? { orderNumericId: query.order_id } : undefined;
  const numeric = query.return_id ?? pathId;
  return numeric !== undefined && NUMBER.test(numeric) ? { numericId: numeric } : undefined;
}
