import { AppError } from '../../platform/errors.js';

export const RETURN_STATUSES = [
  'pre_shipment',
  'open',
  'in_transit',
  'delivered',
  'needs_review',
  'in_review',
  'flagged',
  'complete',
  'rejected',
  'deleted',
] as const;
export type ReturnStatus = (typeof RETURN_STATUSES)[number];

/**
 * Allowed transitions (decisions section 15). `deleted` is a reset: the items
 * become returnable again and nothing leaves it. Reopening (`complete`/`rejected`
 * -> `open`) reverses nothing already done.
 */
export const TRANSITIONS: Record<ReturnStatus, readonly ReturnStatus[]> = {
  pre_shipment: ['open', 'flagged', 'complete', 'rejected', 'deleted'],
  open: ['in_transit', 'delivered', 'needs_review', 'flagged', 'complete', 'rejected', 'deleted'],
  in_transit: ['delivered', 'needs_review', 'flagged', 'complete', 'rejected', 'deleted'],
  delivered: ['needs_review', 'in_review', 'flagged', 'complete', 'rejected', 'deleted'],
  needs_review: ['in_review', 'flagged', 'open', 'complete', 'rejected', 'deleted'],
  in_review: ['needs_review', 'flagged', 'complete', 'rejected'],
  flagged: ['open', 'in_review', 'complete', 'rejected', 'deleted'],
  complete: ['open'],
  rejected: ['open'],
  deleted: [],
};

/** The targets REST `PUT /returns/{id}/status` accepts; GraphQL `updateReturnStatus` takes any. */
export const REST_STATUS_TARGETS = ['complete', 'open', 'flagged', 'rejected', 'deleted'] as const;

/** Statuses whose items no longer count as returned (the units are returnable again). */
export const RELEASED_STATUSES: readonly ReturnStatus[] = ['rejected', 'deleted'];

/** Statuses that close a return (set `closedAt`). */
export const CLOSED_STATUSES: readonly ReturnStatus[] = ['complete', 'rejected', 'deleted'];

export function isReturnStatus(value: unknown): value is ReturnStatus {
  return typeof value === 'string' && (RETURN_STATUSES as readonly string[]).includes(value);
}

export function canTransition(from: ReturnStatus, to: ReturnStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export function assertTransition(from: ReturnStatus, to: ReturnStatus): void {
  if (!canTransition(from, to)) {
    const allowed = TRANSITIONS[from];
    throw new AppError(
      'conflict',
      'invalid-transition',
      `A return cannot go from ${from} to ${to}${allowed.length ? `; from ${from} it can go to ${allowed.join(', ')}` : `; ${from} is final`}.`,
    );
  }
}

/** Shipment tracking statuses and the return status each one moves the return to (when allowed). */
export const SHIPMENT_STATUSES = ['label_created', 'pre_transit', 'in_transit', 'out_for_delivery', 'delivered', 'failure', 'returned_to_sender'] as const;
export type ShipmentStatus = (typeof SHIPMENT_STATUSES)[number];

export function returnStatusForShipment(status: ShipmentStatus): ReturnStatus | undefined {
  if (status === 'in_transit' || status === 'out_for_delivery') return 'in_transit';
  if (status === 'delivered') return 'delivered';
  return undefined;
}
