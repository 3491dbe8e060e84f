import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { invalid } from '../errors.js';

/**
 * Opaque, signed keyset cursors. A cursor holds the sort key of the last row
 * of a page plus a digest of the filters it was issued for; it is accepted only
 * with the same filters, and any tampering breaks its HMAC.
 */
export type CursorKey = (string | number)[];

interface Payload {
  k: CursorKey;
  f: string;
}

let signingKey: Buffer | undefined;

/** Set once at start-up from the shared setting, so every process accepts every other's cursors. */
export function setCursorSigningKey(key: Buffer): void {
  signingKey = key;
}

function key(): Buffer {
  if (!signingKey) throw new Error('cursor signing key not initialised');
  return signingKey;
}

/** A stable digest of a filter set: keys sorted, undefined dropped. */
export function filterDigest(filters: Record<string, unknown>): string {
  const entries = Object.entries(filters)
    .filter(([, v]) => v !== undefined && v !== null)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return createHash('sha256').update(JSON.stringify(entries)).digest('base64url').slice(0, 16);
}

function sign(body: string): string {
  return createHmac('sha256', key()).update(body).digest('base64url').slice(0, 22);
}

export function encodeCursor(sortKey: CursorKey, filters: Record<string, unknown>): string {
  const body = Buffer.from(JSON.stringify({ k: sortKey, f: filterDigest(filters) } satisfies Payload)).toString('base64url');
  return `${body}.${sign(body)}`;
}

function badCursor(detail: string) {
  return invalid('invalid-cursor', detail, [{ pointer: 'query#page-continue', detail }]);
}

export function decodeCursor(cursor: string, filters: Record<string, unknown>): CursorKey {
  const [body, signature, ...rest] = cursor.split('.');
  if (!body || !signature || rest.length) throw badCursor('The cursor is malformed.');
  const expected = Buffer.from(sign(body));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw badCursor('The cursor is invalid or was altered.');
  let payload: Payload;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Payload;
  } catch {
    throw badCursor('The cursor is malformed.');
  }
  if (payload.f !== filterDigest(filters)) {
    throw badCursor('The cursor was issued for other filters; start again without a cursor.');
  }
  return payload.k;
}
