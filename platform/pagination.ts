import { decodeCursor, encodeCursor, type CursorKey } from './cursor.js';
import { invalid } from './errors.js';

export const PAGE_SIZE = { min: 1, max: 500, default: 20 } as const;

export interface PageRequest {
  first: number;
  /** The decoded keyset position, or undefined for the first page. */
  after: CursorKey | undefined;
  filters: Record<string, unknown>;
  /** Count every row matching the filters too (a connection's `totalCount` was asked for). */
  count: boolean;
}

export interface Page<T> {
  items: T[];
  hasNextPage: boolean;
  endCursor: string | null;
  totalCount?: number;
}

export function pageRequest(first: number | null | undefined, after: string | null | undefined, filters: Record<string, unknown>, count = false): PageRequest {
  const size = first ?? PAGE_SIZE.default;
  if (!Number.isInteger(size) || size < PAGE_SIZE.min || size > PAGE_SIZE.max) {
    throw invalid('invalid-page-size', `The page size must be an integer from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}.`, [
      { pointer: 'query#page-size', detail: `must be an integer from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}` },
    ]);
  }
  return { first: size, after: after ? decodeCursor(after, filters) : undefined, filters, count };
}

/**
 * Turns `first + 1` fetched rows into a page: the extra row only tells that
 * another page exists, and the cursor points at the last row kept.
 */
export function toPage<T>(rows: T[], request: PageRequest, sortKey: (row: T) => CursorKey): Page<T> {
  const hasNextPage = rows.length > request.first;
  const items = hasNextPage ? rows.slice(0, request.first) : rows;
  const last = items[items.length - 1];
  return {
    items,
    hasNextPage,
    endCursor: hasNextPage && last ? encodeCursor(sortKey(last), request.filters) : null,
  };
}

/** The same page with its items transformed (the cursor stays that of the rows). */
export function mapPage<T, U>(page: Page<T>, map: (item: T) => U): Page<U> {
  return { ...page, items: page.items.map(map) };
}
