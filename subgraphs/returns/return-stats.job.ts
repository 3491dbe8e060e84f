import { ensureQueue, RETRIES, type PgBoss } from '../../platform/jobs/queue.js';
import type { ModuleDeps } from '../../platform/module.js';
import { compactReturnStats } from './return-stats.service.js';

/** Every minute: fold the deltas the returns rollups gathered (reads are exact either way; this keeps them short). */
export const RETURN_STATS_COMPACTION_QUEUE = 'returns-stats-compaction';

export async function createReturnStatsQueue(boss: PgBoss): Promise<void> {
  await ensureQueue(boss, RETURN_STATS_COMPACTION_QUEUE, { ...RETRIES.housekeeping, expireInSeconds: 600, deadLetters: true });
}

export async function startReturnStatsWorker(deps: ModuleDeps): Promise<void> {
  await deps.boss.schedule(RETURN_STATS_COMPACTION_QUEUE, '* * * * *');
  await deps.boss.work(RETURN_STATS_COMPACTION_QUEUE, { pollingIntervalSeconds: 5 }, async () => {
    await compactReturnStats(deps.orm);
  });
}
