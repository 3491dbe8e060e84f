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
