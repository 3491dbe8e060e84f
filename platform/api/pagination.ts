import { decodeCursor, encodeCursor, type CursorKey } from './cursor.js';
import { invalid } from '../errors.js';

export const PAGE_SIZE = { min: 1, max: 500, default: 20 } as const;

interface PageSizeLimits {
  min: number;
  max: number;
  default: number;
}

export interface PageRequest {
  first: number;
  /** The decoded keyset position, or undefined for the first page. */
  after: CursorKey | undefined;
  /** Paging backwards: the rows just before this position in the list's order (Relay's `before`). */
  before?: CursorKey | undefined;
  filters: Record<string, unknown>;
  /** Count every row matching the filters too (a connection's `totalCount` was asked for). */
  count: boolean;
}

export interface Page<T> {
  items: T[];
  hasNextPage: boolean;
  endCursor: string | null;
  /** Lists that page both ways: whether rows precede this page, and the cursor of its first row. */
  hasPreviousPage?: boolean;
  startCursor?: string | null;
  totalCount?: number;
}

export interface PageRequestOptions {
  /** Relay's `before`: a page of the rows preceding this cursor. */
  before?: string | null;
  /** The list's own size limits (PAGE_SIZE by default). */
  size?: PageSizeLimits;
}

export function pageRequest(first: number | null | undefined, after: string | null | undefined, filters: Record<string, unknown>, count = false, options: PageRequestOptions = {}): PageRequest {
  const limits = options.size ?? PAGE_SIZE;
  const size = first ?? limits.default;
  if (!Number.isInteger(size) || size < limits.min || size > limits.max) {
    throw invalid('invalid-page-size', `The page size must be an integer from ${limits.min} to ${limits.max}.`, [
      { pointer: 'query#page-size', detail: `must be an integer from ${limits.min} to ${limits.max}` },
    ]);
  }
  if (after && options.before) throw invalid('invalid-cursor', 'Page forwards (after) or backwards (before), not both.', [{ pointer: 'query#page-continue', detail: 'give after or before' }]);
  return {
    first: size,
    after: after ? decodeCursor(after, filters) : undefined,
    before: options.before ? decodeCursor(options.before, filters) : undefined,
    filters,
    count,
  };
}

/**
 * Turns `first + 1` fetched rows (in the list's order) into a page: the extra
 * row only tells that another page exists, and the cursors point at the first
 * and last rows kept. Rows fetched backwards (`before`) arrive in the list's
 * order too, the extra one first.
 */
export function toPage<T>(rows: T[], request: PageRequest, sortKey: (row: T) => CursorKey): Page<T> {
  const more = rows.length > request.first;
  if (request.before) {
    const items = more ? rows.slice(rows.length - request.first) : rows;
    const first = items[0];
    const last = items[items.length - 1];
    // The row the cursor was taken from follows this page.
    return {
      items,
      hasNextPage: true,
      endCursor: last ? encodeCursor(sortKey(last), request.filters) : encodeCursor(request.before, request.filters),
      hasPreviousPage: more,
      startCursor: first ? encodeCursor(sortKey(first), request.filters) : null,
    };
  }
  const items = more ? rows.slice(0, request.first) : rows;
  const first = items[0];
  const last = items[items.length - 1];
  return {
    items,
    hasNextPage: more,
    endCursor: more && last ? encodeCursor(sortKey(last), request.filters) : null,
    // A page after a cursor has at least the cursor's own row before it.
    hasPreviousPage: request.after !== undefined,
    startCursor: request.after !== undefined && first ? encodeCursor(sortKey(first), request.filters) : null,
  };
}

/** The same page with its items transformed (the cursor stays that of the rows). */
export function mapPage<T, U>(page: Page<T>, map: (item: T) => U): Page<U> {
  return { ...page, items: page.items.map(map) };
}
