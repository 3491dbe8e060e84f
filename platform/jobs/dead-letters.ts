import type { InsertOptions } from 'pg-boss';
import { DEAD_LETTER_SUFFIX, deadLetterQueue, type PgBoss } from './queue.js';

/**
 * Dead letters (queues declared with `deadLetters`, queue.ts): the admin token lists and counts
 * them in GraphQL (`deadLetters`, `deadLetterCounts`) and moves them back to work once the cause is
 * fixed (`retryDeadLetters`); `/metrics` counts them.
 */

/** Where the owner of a retried piece of work (the events' inbox) puts what it gave up on, with why: the key its error rides under. */
const FAILURE = 'deadLetterError';

/**
 * Dead-letters work the project retried itself (not through a pg-boss queue), in the caller's
 * transaction (`db`): into the same `<queue>-dead` queue as pg-boss's own dead letters, listed,
 * counted and retried the same way. The error rides in the data (pg-boss takes no output on insert).
 */
export async function sendToDeadLetters(boss: PgBoss, db: NonNullable<InsertOptions['db']>, queue: string, items: readonly { data: object; error: string }[]): Promise<void> {
  await boss.insert(deadLetterQueue(queue), items.map((i) => ({ data: { ...i.data, [FAILURE]: { message: i.error } } })), { db });
}

/** A dead letter's data without the error `sendToDeadLetters` put in it, and that error. */
export function withoutFailure(data: unknown): { data: unknown; error: unknown } {
  if (!data || typeof data !== 'object' || !(FAILURE in data)) return { data, error: undefined };
  const { [FAILURE]: error, ...rest } = data as Record<string, unknown>;
  return { data: rest, error };
}

export interface DeadLetter {
  id: string;
  /** The queue the job failed in. */
  queue: string;
  data: unknown;
  /** What the last attempt failed with. */
  error: unknown;
  deadLetteredAt: Date;
}

/** The work queues that have dead letters (every queue with a `-dead` sibling). */
export async function deadLetterQueues(boss: PgBoss): Promise<string[]> {
  const queues = await boss.getQueues();
  const names = new Set(queues.map((q) => q.name));
  return [...names].filter((name) => !name.endsWith(DEAD_LETTER_SUFFIX) && names.has(deadLetterQueue(name))).sort();
}

/** Dead letters of one work queue (or of all), oldest first. */
export async function listDeadLetters(boss: PgBoss, queue: string | undefined, first: number): Promise<DeadLetter[]> {
  const queues = queue ? [queue] : await deadLetterQueues(boss);
  const letters: DeadLetter[] = [];
  for (const name of queues) {
    const jobs = await boss.findJobs(deadLetterQueue(name), { queued: true });
    for (const job of jobs) {
      const { data, error } = withoutFailure(job.data);
      letters.push({ id: job.id, queue: name, data, error: job.sourceOutput ?? job.output ?? error ?? null, deadLetteredAt: job.createdOn });
    }
  }
  return letters.sort((a, b) => a.deadLetteredAt.getTime() - b.deadLetteredAt.getTime()).slice(0, first);
}

/** How many dead letters each work queue holds (zeros included); exact, not pg-boss's periodic statistics. */
export async function countDeadLetters(boss: PgBoss): Promise<{ queue: string; count: number }[]> {
  const counts: { queue: string; count: number }[] = [];
  for (const queue of await deadLetterQueues(boss)) counts.push({ queue, count: (await boss.findJobs(deadLetterQueue(queue), { queued: true })).length });
  return counts;
}

/** Moves dead letters (all of the queue's, or the given ids) back to work; how many moved. */
export async function retryDeadLetters(boss: PgBoss, queue: string, ids?: string[]): Promise<number> {
  return boss.redrive(deadLetterQueue(queue), { destination: queue, ...(ids ? { ids } : {}) });
}
