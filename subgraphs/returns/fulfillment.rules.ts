/**
 * Fulfillments' pure rules (unit-tested in test/unit/fulfillment-rules.test.ts): the carrier
 * statuses and the automation events of the real platform's orders API, how a tracking entry
 * moves a fulfillment's status, and what is left to fulfil of a line.
 */

/** Statuses: the shipment's state as its carrier reports it. */
export const FULFILLMENT_STATUSES = [
  'pre_transit',
  'unknown',
  'in_transit',
  'out_for_delivery',
  'available_for_pickup',
  'delivered',
  'return_to_sender',
  'failure',
  'cancelled',
  'error',
] as const;
export type FulfillmentStatus = (typeof FULFILLMENT_STATUSES)[number];

/** Events: recorded in the tracking history (and published) without changing the status. */
const FULFILLMENT_EVENTS = ['stalled_in_transit', 'delayed', 'arriving_early'] as const;

/** What a shipment-status update may post: a status (`unknown` is the service's own, never posted) or an event. */
export const POSTED_STATUSES = [...FULFILLMENT_STATUSES.filter((s) => s !== 'unknown'), ...FULFILLMENT_EVENTS] as const;
export type PostedStatus = (typeof POSTED_STATUSES)[number];

const isFulfillmentStatus = (value: string): value is FulfillmentStatus => (FULFILLMENT_STATUSES as readonly string[]).includes(value);

/** A fulfillment's state as tracking entries move it. */
export interface TrackingState {
  status: FulfillmentStatus;
  /** The time of the entry that set the status (null: set at creation, by no entry). */
  statusAt: Date | null;
  deliveredAt: Date | null;
}

/**
 * A tracking entry applied to a fulfillment's state. A status entry sets the status unless an entry
 * already applied is newer (carriers' updates arrive out of order: the newest report wins, whatever
 * the arrival order); an event changes nothing but the history. `delivered` records when.
 */
export function applyTrackingEntry(state: TrackingState, entry: { status: PostedStatus; at: Date }): TrackingState {
  if (!isFulfillmentStatus(entry.status)) return state;
  if (state.statusAt !== null && entry.at.getTime() < state.statusAt.getTime()) return state;
  return { status: entry.status, statusAt: entry.at, deliveredAt: entry.status === 'delivered' ? entry.at : state.deliveredAt };
}

/** The status a new fulfillment starts in: the dummy tracker's initial status, else pre_transit with a tracking number, unknown without. */
export function initialStatus(tracking: { code: string } | null | undefined, dummyInitial: FulfillmentStatus | undefined): FulfillmentStatus {
  return dummyInitial ?? (tracking ? 'pre_transit' : 'unknown');
}

/** Units of a line still to fulfil: ordered less those in fulfillments that are not cancelled. */
export function unfulfilledUnits(ordered: number, fulfilled: number): number {
  return Math.max(0, ordered - fulfilled);
}

/** The default message of a tracking entry posted without one: its status in words (`out_for_delivery` -> "Out for delivery"). */
export function defaultMessage(status: string): string {
  const words = status.replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The calendar date an estimated delivery names: the date as written in the timestamp (the carrier's local date), not its UTC date. */
export function estimatedDate(value: string): string {
  return value.slice(0, 10);
}
