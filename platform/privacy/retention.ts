import { sql, type Orm } from '../db/orm.js';
import type { Logger } from '../observability/logger.js';
import { metrics } from '../observability/metrics.js';
import { ensureQueue, RETRIES, type PgBoss } from '../jobs/queue.js';
import type { RetentionDays, RetentionParticipant, RetentionPolicy } from './participants.js';

/**
 * How long records are kept when a store has not chosen: custom events until erased (they are the
 * history segments and flows read), flows' messages a year, finished flow runs 90 days (they explain
 * what a flow did), webhook delivery logs 30 days (as they always were; replay reaches that far).
 */
export const RETENTION_DEFAULTS: RetentionDays = { customEventDays: null, messageDays: 365, flowRunDays: 90, webhookLogDays: 30 };

const RETENTION_QUEUE = 'privacy-retention';

const removed = metrics.counter('privacy_retention_removed_total', 'Rows removed by the retention job because they were past their store\'s retention, by kind.', ['kind']);

const COLUMNS = `custom_event_days as "customEventDays", message_days as "messageDays", flow_run_days as "flowRunDays", webhook_log_days as "webhookLogDays"`;

/** Each store's retention setting (platform.retention_setting); a store without a row keeps the defaults. */
export class RetentionSettings {
  constructor(private readonly orm: Orm) {}

  async get(storeId: string): Promise<RetentionDays> {
    const [row] = await sql<RetentionDays>(this.orm.em.fork(), `select ${COLUMNS} from retention_setting where store_id = $1`, [storeId]);
    return row ?? { ...RETENTION_DEFAULTS };
  }

  /** Replaces the given values (null: kept until erased); the others keep what the store had. */
  async update(storeId: string, patch: Partial<RetentionDays>): Promise<RetentionDays> {
    return this.orm.em.fork().transactional(async (em) => {
      const [current] = await sql<RetentionDays>(em, `select ${COLUMNS} from retention_setting where store_id = $1 for update`, [storeId]);
      const next: RetentionDays = { ...RETENTION_DEFAULTS, ...current };
      for (const key of Object.keys(RETENTION_DEFAULTS) as (keyof RetentionDays)[]) if (patch[key] !== undefined) next[key] = patch[key];
      await sql(
        em,
        `insert into retention_setting (store_id, custom_event_days, message_days, flow_run_days, webhook_log_days) values ($1, $2, $3, $4, $5)
         on conflict (store_id) do update set custom_event_days = $2, message_days = $3, flow_run_days = $4, webhook_log_days = $5, updated_at = now()`,
        [storeId, next.customEventDays, next.messageDays, next.flowRunDays, next.webhookLogDays],
      );
      return next;
    });
  }

  async policy(): Promise<RetentionPolicy> {
    const stores = await sql<RetentionDays & { storeId: string }>(this.orm.em.fork(), `select store_id as "storeId", ${COLUMNS} from retention_setting order by store_id`);
    return { defaults: RETENTION_DEFAULTS, stores: stores.map(({ storeId, ...days }) => ({ storeId, days })) };
  }
}

export async function createRetentionQueue(boss: PgBoss): Promise<void> {
  await ensureQueue(boss, RETENTION_QUEUE, { ...RETRIES.retention, expireInSeconds: 3600, heartbeatSeconds: 30, deadLetters: true });
}

/** Runs a retention pass now (besides the schedule): for administrators and tests. */
export async function requestRetentionPass(boss: PgBoss): Promise<void> {
  await boss.send(RETENTION_QUEUE, {});
}

/** One pass: every part removes, in short batches, what is past its store's retention. */
async function enforceRetention(settings: RetentionSettings, participants: readonly RetentionParticipant[], logger: Logger): Promise<Record<string, number>> {
  const policy = await settings.policy();
  const total: Record<string, number> = {};
  for (const participant of participants) {
    for (const [kind, n] of Object.entries(await participant.enforce(policy))) {
      if (!n) continue;
      removed.inc({ kind }, n);
      total[kind] = (total[kind] ?? 0) + n;
    }
  }
  logger.info({ removed: total }, 'retention pass done');
  return total;
}

/** Workers run the pass on a schedule (pg-boss cron, one job per tick whatever the number of processes). */
export async function startRetentionWorker(boss: PgBoss, settings: RetentionSettings, participants: readonly RetentionParticipant[], cron: string, logger: Logger): Promise<void> {
  await boss.schedule(RETENTION_QUEUE, cron, {});
  await boss.work(RETENTION_QUEUE, { batchSize: 1, pollingIntervalSeconds: 2 }, async () => {
    await enforceRetention(settings, participants, logger);
  });
}
