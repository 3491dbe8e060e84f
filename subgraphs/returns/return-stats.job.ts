import { withDeadLetters } from '../../platform/jobs/dead-letters.js';
import { ensureQueue, type PgBoss } from '../../platform/jobs/queue.js';
import type { SubgraphDeps } from '../../platform/subgraph.js';
import { compactReturnStats } from './return-stats.service.js';

/** Every minute: fold the deltas the returns rollups gathered (reads are exact either way; this keeps them short). */
export const RETURN_STATS_COMPACTION_QUEUE = 'returns-stats-compaction';

export async function createReturnStatsQueue(boss: PgBoss): Promise<void> {
  await ensureQueue(boss, RETURN_STATS_COMPACTION_QUEUE, { retryLimit: 1, expireInSeconds: 600, ...(await withDeadLetters(boss, RETURN_STATS_COMPACTION_QUEUE)) });
}

export async function startReturnStatsWorker(deps: SubgraphDeps): Promise<void> {
  await deps.boss.schedule(RETURN_STATS_COMPACTION_QUEUE, '* * * * *');
  await deps.boss.work(RETURN_STATS_COMPACTION_QUEUE, { pollingIntervalSeconds: 5 }, async () => {
    await compactReturnStats(deps.orm);
  });
}
