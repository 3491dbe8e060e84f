import { PgBoss } from 'pg-boss';
import type { Logger } from './logger.js';

export type { PgBoss };

export const QUEUE_SCHEMA = 'pgboss';

/**
 * pg-boss in its own schema. `supervise` (maintenance: expiring, archiving,
 * dead-lettering) runs in processes that work jobs; a facade-only process
 * only inserts jobs.
 */
export async function startQueue(url: string, logger: Logger, options: { supervise: boolean; poolSize: number }): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: url,
    schema: QUEUE_SCHEMA,
    max: options.poolSize,
    supervise: options.supervise,
    schedule: options.supervise,
    migrate: true,
    useListenNotify: true,
    application_name: 'returns-platform-queue',
  });
  boss.on('error', (err: unknown) => logger.error({ err }, 'queue error'));
  await boss.start();
  return boss;
}

/**
 * After the database crashed, the jobs that were `active` when it went down are
 * held by transactions that no longer exist (a crash ends every connection),
 * and the workers could not report them failed while it was away. pg-boss
 * would retry them only once their claim expires (`expireInSeconds`, then the
 * next supervise pass: up to two minutes). Failing them now, through pg-boss,
 * retries them at once, each after its queue's retry delay. Handlers are
 * idempotent (events carry their ledger, restock its ledger, webhooks are
 * at-least-once), so a job another process was still finishing outside the
 * database at worst runs twice.
 */
export async function retryInterruptedJobs(boss: PgBoss, downSince: Date, logger: Logger): Promise<number> {
  const db = boss.getDb();
  const { rows } = (await db.executeSql(`select name, id from ${QUEUE_SCHEMA}.job where state = 'active' and started_on < $1`, [downSince])) as {
    rows: { name: string; id: string }[];
  };
  const byQueue = new Map<string, string[]>();
  for (const { name, id } of rows) byQueue.set(name, [...(byQueue.get(name) ?? []), id]);
  for (const [name, ids] of byQueue) await boss.fail(name, ids, { reason: 'the database crashed while the job ran' });
  if (rows.length) logger.warn({ jobs: rows.length, queues: [...byQueue.keys()] }, 'retrying the jobs the database crash interrupted');
  return rows.length;
}
