import { createHash } from 'node:crypto';
import { sql, type EntityManager } from '../db/orm.js';
import { AppError, invalid } from '../errors.js';

/**
 * Idempotency keys (decisions section 8): the same key and the same body
 * again answer with the first result; the same key with another body is 422;
 * the same key while the first request still runs is 409.
 *
 * A request holds its key with a transaction-scoped PostgreSQL advisory lock
 * and records the key in the same transaction as its result. So a claim lives
 * exactly as long as the request: when the request's process dies, its
 * connection closes, the transaction rolls back and the lock is released, and
 * a retry proceeds at once; when it commits, the key and the result appear
 * together. A duplicate that finds the lock taken is told the request is in
 * progress, without waiting for it.
 *
 * Each subgraph keeps its keys in its own schema, in a table `idempotency_key
 * (store_id, key, request_hash, result_id, claimed_at, expires_at)` with the
 * primary key (store_id, key), written in the transaction of its own writes.
 */
const IDEMPOTENCY_KEY_MAX = 255;
const TTL = "interval '24 hours'";

/** Canonical JSON (keys sorted) so the same body hashes the same whatever its key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    // Entries, not value[k]: an own "__proto__" property is read as itself, not as the prototype.
    return `{${Object.entries(value)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

function requestHash(body: unknown): string {
  return createHash('sha256').update(canonical(body)).digest('hex');
}

/** A key as a client sends it: one value of 1 to 255 characters (400 otherwise). */
export function checkIdempotencyKey(key: unknown, pointer = 'header#idempotency-key'): string | undefined {
  if (key === undefined || key === null) return undefined;
  if (typeof key !== 'string' || key.length < 1 || key.length > IDEMPOTENCY_KEY_MAX) {
    throw invalid('validation-failed', `The Idempotency-Key must be one value of 1 to ${IDEMPOTENCY_KEY_MAX} characters.`, [
      { pointer, detail: `must be 1 to ${IDEMPOTENCY_KEY_MAX} characters` },
    ]);
  }
  return key;
}

export type Keyed<T> = { kind: 'created'; value: T } | { kind: 'replay'; resultId: string };

/**
 * Runs `create` in the transaction of `em` (which must be in one) under the
 * key, or tells the caller to replay the recorded result. `create` returns
 * its value and the id of the result to replay later.
 */
export async function withIdempotencyKey<T>(
  em: EntityManager,
  scope: { storeId: string; key: string; body: unknown },
  create: () => Promise<{ value: T; resultId: string }>,
): Promise<Keyed<T>> {
  if (!em.isInTransaction()) throw new Error('idempotency keys are claimed inside the transaction of the request');
  const { storeId, key } = scope;
  const hash = requestHash(scope.body);
  const [lock] = await sql<{ held: boolean }>(em, `select pg_try_advisory_xact_lock(hashtextextended($1, 0)) as held`, [`idempotency:${storeId}:${key}`]);
  if (!lock!.held) throw new AppError('conflict', 'idempotency-key-in-progress', 'A request with this Idempotency-Key is still being processed; retry shortly.');
  const [existing] = await sql<{ requestHash: string; resultId: string }>(
    em,
    `select request_hash as "requestHash", result_id as "resultId" from idempotency_key where store_id = $1 and key = $2 and expires_at > now()`,
    [storeId, key],
  );
  if (existing) {
    if (existing.requestHash !== hash) throw new AppError('unprocessable', 'idempotency-key-reused', 'This Idempotency-Key was used with a different request body.');
    return { kind: 'replay', resultId: existing.resultId };
  }
  const created = await create();
  // An expired record of the key is replaced: after 24 hours the key may serve another request.
  await sql(
    em,
    `insert into idempotency_key (store_id, key, request_hash, result_id, expires_at) values ($1, $2, $3, $4, now() + ${TTL})
     on conflict (store_id, key) do update set request_hash = excluded.request_hash, result_id = excluded.result_id,
       claimed_at = now(), expires_at = excluded.expires_at`,
    [storeId, key, hash, created.resultId],
  );
  return { kind: 'created', value: created.value };
}
