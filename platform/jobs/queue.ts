import { PgBoss, type Queue, type QueueResult, type UpdateQueueOptions } from 'pg-boss';
import type { DatabaseTimeouts } from '../config.js';
import { poolConfig } from '../db/pool.js';
import type { Logger } from '../observability/logger.js';
import { activeJobsStartedBefore, QUEUE_SCHEMA, vacuumJobTablesEarly } from './queue-tables.js';

export { QUEUE_SCHEMA };

export type { PgBoss };

/** How a queue retries, expires and keeps its jobs (pg-boss's queue options). */
export type QueuePolicy = Omit<Queue, 'name'>;

/**
 * What a queue has for each setting its policy leaves out: pg-boss 12's own defaults, so a queue
 * brought up to date holds what the same policy gives a new queue. A setting dropped from a policy
 * thus goes back to its default, as it would on a new database.
 */
const POLICY_DEFAULTS: Required<{ [K in keyof UpdateQueueOptions]: UpdateQueueOptions[K] | null }> = {
  retryLimit: 2,
  retryDelay: 0,
  retryBackoff: false,
  retryDelayMax: null,
  expireInSeconds: 15 * 60,
  retentionSeconds: 14 * 24 * 3600,
  deleteAfterSeconds: 7 * 24 * 3600,
  warningQueueSize: 0,
  heartbeatSeconds: null,
  notify: false,
  deadLetter: null,
};

/**
 * How each kind of work retries, in one table: `retryLimit` tries after the first, `retryDelay`
 * seconds before the first retry, doubling with `retryBackoff` up to `retryDelayMax`. Every queue
 * takes its retries from here, so how the service retries reads in one place.
 */
export const RETRIES = {
  /** Periodic housekeeping: once more, then the next scheduled run does it (the returns rollups' compaction). */
  housekeeping: { retryLimit: 1 },
  /** Accepted custom events: a handful of quick tries, then the dead letters, where a bad event shows soon. */
  events: { retryLimit: 5, retryDelay: 2, retryBackoff: true, retryDelayMax: 300 },
  /** Work an operator asked for (webhook replays and backfills). */
  requested: { retryLimit: 5, retryDelay: 5, retryBackoff: true },
  /** A flow's steps: a provider that is down is asked again at most every ten minutes. */
  flowSteps: { retryLimit: 5, retryDelay: 5, retryBackoff: true, retryDelayMax: 600 },
  /** Flow runs started from processed events: retried quickly, then at most every five minutes. */
  flowTriggers: { retryLimit: 10, retryDelay: 2, retryBackoff: true, retryDelayMax: 300 },
  /** Reactions to another module's events (restock, product facts): they must happen, so ten tries. */
  reactions: { retryLimit: 10, retryDelay: 5, retryBackoff: true },
  /** A completion a client was told is queued: soon, and at least once a minute. */
  completions: { retryLimit: 10, retryDelay: 1, retryBackoff: true, retryDelayMax: 60 },
  /** Customer erasures: they must finish; a long outage is waited out ten minutes at a time. */
  erasures: { retryLimit: 10, retryDelay: 5, retryBackoff: true, retryDelayMax: 600 },
  /** Retention passes: three tries a minute apart (the next scheduled pass comes anyway). */
  retention: { retryLimit: 3, retryDelay: 60 },
} as const satisfies Record<string, QueuePolicy>;

export type RetryPolicy = Pick<QueuePolicy, 'retryLimit' | 'retryDelay' | 'retryBackoff' | 'retryDelayMax'>;

/**
 * The pause before retry `attempt` (1: the first retry) under a policy, as pg-boss computes it for
 * its queues, for the work the project retries itself (the events' inbox): `retryDelay` seconds,
 * doubled per attempt with `retryBackoff` (with up to 10 % jitter, so failures do not return in
 * step), at most `retryDelayMax`.
 */
export function retryDelaySeconds(policy: RetryPolicy, attempt: number): number {
  const base = policy.retryDelay ?? 0;
  if (!policy.retryBackoff) return base;
  const delay = base * 2 ** Math.max(0, attempt - 1) * (1 + Math.random() * 0.1);
  return policy.retryDelayMax ? Math.min(policy.retryDelayMax, delay) : delay;
}

/**
 * Poison jobs are visible, not silent: a work queue declared with `deadLetters` has a dead-letter
 * queue (`<queue>-dead`, kept a year) where a job lands, with its last error, once its retries are
 * exhausted (or its data can never be processed). See dead-letters.ts.
 */
export const DEAD_LETTER_SUFFIX = '-dead';
export const DEAD_LETTER_RETENTION_SECONDS = 365 * 24 * 3600;

export function deadLetterQueue(queue: string): string {
  return `${queue}${DEAD_LETTER_SUFFIX}`;
}

/** A queue's policy, and whether its exhausted jobs go to its dead-letter queue. */
export interface QueueDeclaration extends QueuePolicy {
  deadLetters?: boolean;
}

/**
 * Creates a queue with its policy, or, when it exists with another one, updates it: a policy changed
 * in code reaches databases made before the change. Idempotent, safe in every process at once.
 * What pg-boss cannot change after creation (the `policy` kind, `partition`) fails loudly instead.
 */
export async function ensureQueue(boss: PgBoss, name: string, declaration: QueueDeclaration = {}): Promise<void> {
  const { deadLetters, ...policy } = declaration;
  if (deadLetters) {
    await ensureQueue(boss, deadLetterQueue(name), { retentionSeconds: DEAD_LETTER_RETENTION_SECONDS });
    policy.deadLetter = deadLetterQueue(name);
  }
  const existing = await boss.getQueue(name);
  if (!existing) return boss.createQueue(name, policy);
  const { policy: kind = 'standard', partition = false, ...settings } = policy;
  if (kind !== existing.policy || partition !== existing.partition) {
    throw new Error(`queue ${name} exists as ${existing.policy}${existing.partition ? ' (partitioned)' : ''}; pg-boss cannot make it ${kind}${partition ? ' (partitioned)' : ''}`);
  }
  const wanted = { ...POLICY_DEFAULTS, ...settings };
  const stored = existing as QueueResult & Record<string, unknown>;
  if (Object.entries(wanted).some(([key, value]) => (stored[key] ?? null) !== value)) await boss.updateQueue(name, wanted as UpdateQueueOptions);
}

/**
 * pg-boss in its own schema. `supervise` (maintenance: expiring, archiving,
 * dead-lettering) runs in processes that work jobs; a facade-only process
 * only inserts jobs.
 */
export async function startQueue(url: string, logger: Logger, options: { supervise: boolean; poolSize: number; timeouts: DatabaseTimeouts }): Promise<PgBoss> {
  const boss = new PgBoss({
    // The same bounds as every other pool (pg-boss hands these on to its pg.Pool and LISTEN client).
    ...poolConfig(url, 'returns-platform-queue', options.poolSize, options.timeouts),
    schema: QUEUE_SCHEMA,
    supervise: options.supervise,
    schedule: options.supervise,
    migrate: true,
    useListenNotify: true,
    notifyKeepAliveInitialDelayMs: options.timeouts.keepAliveMs,
  });
  boss.on('error', (err: unknown) => logger.error({ err }, 'queue error'));
  try {
    await boss.start();
  } catch (err) {
    // pg-boss cannot start again after a failed start: this one goes, a retry makes a new one.
    await boss.stop({ graceful: false, close: true }).catch(() => undefined);
    throw err;
  }
  // A tuning, not a requirement: a database user that may not alter the tables still runs the service.
  await vacuumJobTablesEarly(boss.getDb()).catch((err: unknown) => logger.warn({ err }, 'could not set the job tables\' autovacuum settings'));
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
  const rows = await activeJobsStartedBefore(boss.getDb(), downSince);
  const byQueue = new Map<string, string[]>();
  for (const { name, id } of rows) byQueue.set(name, [...(byQueue.get(name) ?? []), id]);
  for (const [name, ids] of byQueue) await boss.fail(name, ids, { reason: 'the database crashed while the job ran' });
  if (rows.length) logger.warn({ jobs: rows.length, queues: [...byQueue.keys()] }, 'retrying the jobs the database crash interrupted');
  return rows.length;
}
