import { sql, type EntityManager, type Orm } from '../db/orm.js';
import { transactionDb } from './outbox.js';
import { QUEUE_SCHEMA, type PgBoss } from './queue.js';

/** A job claimed by the transaction that applies it. */
export interface ClaimedJobRow {
  id: string;
  data: unknown;
  /** When its insert ran (jobs inserted together share it). */
  createdOn: Date;
}

export interface ClaimOptions {
  limit: number;
  /** Jobs this process already holds in other open transactions. */
  exclude: readonly string[];
  /** Only the jobs of these partitions (`hashtext(data->>key) & (count - 1)`); all when omitted. */
  partitions?: { key: string; count: number; held: readonly number[] };
  /** Only these jobs. */
  only?: readonly string[];
}

/**
 * Claims a queue's oldest due jobs by locking their rows in the caller's transaction, which then
 * applies them and deletes them (`settleInTransaction`): no `active` state, so a crash leaves them
 * as they were, due at once, in their place, instead of waiting for a claim to expire. The lock is
 * waited for, never skipped: two transactions that read the same jobs take them one after the
 * other, in order, which is what keeps the order of a partition across processes.
 */
export async function claimJobs(em: EntityManager, queue: string, options: ClaimOptions): Promise<ClaimedJobRow[]> {
  const { partitions, only } = options;
  const params: unknown[] = [queue, options.exclude, options.limit];
  let filters = '';
  if (partitions) {
    params.push(partitions.key, partitions.count - 1, partitions.held);
    filters += ` and (hashtext(j.data->>$${params.length - 2}::text) & $${params.length - 1}::int) = any($${params.length}::int[])`;
  }
  if (only) {
    params.push(only);
    filters += ` and j.id = any($${params.length}::uuid[])`;
  }
  return sql<ClaimedJobRow>(
    em,
    `select j.id, j.data, j.created_on as "createdOn" from ${QUEUE_SCHEMA}.job j
      where j.name = $1 and j.state < 'active' and not j.blocked and j.start_after <= now() and j.id <> all($2::uuid[])${filters}
      order by j.priority desc, j.created_on limit $3
      for update of j`,
    params,
  );
}

/**
 * Records a failed attempt of a job claimed with `claimJobs` (its transaction rolled back), as
 * pg-boss's fetch and fail would have: the attempt counts, then pg-boss schedules the retry or
 * dead-letters the job (at once when `permanent`). Returns what became of it; null when the job
 * was no longer waiting (another transaction applied it).
 */
export async function failClaimedJob(boss: PgBoss, orm: Orm, queue: string, id: string, message: string, permanent: boolean): Promise<'failed' | 'dead_lettered' | null> {
  return orm.em.fork().transactional(async (em) => {
    const [started] = await sql<{ last: boolean }>(
      em,
      `update ${QUEUE_SCHEMA}.job set state = 'active', started_on = now(),
              retry_count = case when $3 then retry_limit when started_on is not null then retry_count + 1 else retry_count end
        where name = $1 and id = $2 and state < 'active' returning retry_count >= retry_limit as last`,
      [queue, id, permanent],
    );
    if (!started) return null;
    await boss.fail(queue, id, { message }, { db: transactionDb(em) });
    return started.last ? 'dead_lettered' : 'failed';
  });
}
