import { poolOf, type Orm } from '../db/orm.js';
import { metrics } from './metrics.js';
import type { PgBoss } from '../jobs/queue.js';
import { queueDepths } from '../jobs/queue-tables.js';

const queueJobs = metrics.gauge('queue_jobs', 'pg-boss jobs per queue: queued (due now), deferred (due later), active (being worked).', ['queue', 'state']);
const queueOldest = metrics.gauge('queue_oldest_job_age_seconds', 'Age of the oldest job of each queue that is due and not yet picked up (0 when none).', ['queue']);
const poolConnections = metrics.gauge('db_pool_connections', 'Database pool connections per pool: total (open), idle, and waiting (requests queued for one).', ['pool', 'state']);
const poolMax = metrics.gauge('db_pool_max_connections', 'Largest number of connections each pool opens.', ['pool']);
const ready = metrics.gauge('service_ready', 'Readiness as /readyz reports it, per check (database, queue, pool:<name>): 1 ready, 0 not.', ['check']);

/** Readiness read at scrape time (the checks of /readyz), so an alert can fire on it; returns the function that removes it. */
export function registerReadinessMetric(check: () => Promise<Record<string, boolean>>): () => void {
  return metrics.collector(async () => {
    for (const [name, ok] of Object.entries(await check())) ready.set({ check: name }, ok ? 1 : 0);
  });
}

/** Registers the scrape-time readers of a runtime's queue and pools; returns the function that removes them. */
export function registerRuntimeMetrics(boss: PgBoss, pools: Record<string, { orm: Orm; max: number }>): () => void {
  const removeQueue = metrics.collector(async () => {
    const rows = await queueDepths(boss.getDb());
    queueJobs.reset();
    queueOldest.reset();
    for (const row of rows) {
      queueJobs.set({ queue: row.name, state: 'queued' }, row.queued);
      queueJobs.set({ queue: row.name, state: 'deferred' }, row.deferred);
      queueJobs.set({ queue: row.name, state: 'active' }, row.active);
      queueOldest.set({ queue: row.name }, Math.max(0, row.oldest ?? 0));
    }
  });
  const removePools = metrics.collector(async () => {
    for (const [name, { orm, max }] of Object.entries(pools)) {
      const pool = poolOf(orm);
      poolConnections.set({ pool: name, state: 'total' }, pool.totalCount);
      poolConnections.set({ pool: name, state: 'idle' }, pool.idleCount);
      poolConnections.set({ pool: name, state: 'waiting' }, pool.waitingCount);
      poolMax.set({ pool: name }, max);
    }
  });
  return () => {
    removeQueue();
    removePools();
  };
}
