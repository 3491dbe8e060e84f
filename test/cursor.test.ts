import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, setCursorSigningKey } from '../platform/api/cursor.js';
import { AppError } from '../platform/errors.js';

describe('cursor codec', () => {
  beforeAll(() => setCursorSigningKey(randomBytes(32)));

  it('round-trips a keyset position for the same filters', () => {
    const cursor = encodeCursor(['2026-01-01T00:00:00.000001Z', 'ret_1'], { storeId: 's', status: 'open' });
    expect(decodeCursor(cursor, { status: 'open', storeId: 's' })).toEqual(['2026-01-01T00:00:00.000001Z', 'ret_1']);
  });

  it('treats absent and undefined filters alike', () => {
    const cursor = encodeCursor([1, 'a'], { storeId: 's', status: undefined });
    expect(decodeCursor(cursor, { storeId: 's' })).toEqual([1, 'a']);
  });

  it('rejects other filters, tampering and garbage with invalid-cursor', () => {
    const cursor = encodeCursor([1, 'a'], { storeId: 's' });
    const attempts = [
      () => decodeCursor(cursor, { storeId: 't' }),
      () => decodeCursor(cursor.replace(/^./, (c) => (c === 'e' ? 'f' : 'e')), { storeId: 's' }),
      () => decodeCursor('not-a-cursor', { storeId: 's' }),
      () => decodeCursor(`${cursor}.extra`, { storeId: 's' }),
    ];
    for (const attempt of attempts) {
      expect(attempt).toThrow(AppError);
      try {
        attempt();
      } catch (err) {
        expect((err as AppError).slug).toBe('invalid-cursor');
      }
    }
  });

  it('rejects a cursor signed with another key', () => {
    const cursor = encodeCursor([1, 'a'], {});
    setCursorSigningKey(randomBytes(32));
    expect(() => decodeCursor(cursor, {})).toThrow(/invalid|altered/);
  });
});
