import type { JobResult } from 'pg-boss';
import type { Logger } from '../observability/logger.js';

interface BatchJob {
  id: string;
}

export interface EachAloneOptions {
  /** What a job does, for the logs: "custom event processing", "flow step". */
  what: string;
  /** Failures that no retry can mend go straight to the dead letters (pg-boss `deadletter`). */
  isPermanent?: (err: unknown) => boolean;
}

/**
 * Applies each job on its own (after the batch they came in failed), so one bad job cannot hold
 * its batch-mates back: the ones that apply are completed, the others failed (retried by their
 * queue's policy) or dead-lettered. Results for a `perJobResults` worker.
 */
async function applyEachAlone<J extends BatchJob>(jobs: readonly J[], apply: (batch: J[]) => Promise<unknown>, logger: Logger, options: EachAloneOptions): Promise<JobResult[]> {
  const results: JobResult[] = [];
  for (const job of jobs) {
    try {
      await apply([job]);
      results.push({ id: job.id, status: 'completed' });
    } catch (err) {
      logger.error({ err, jobId: job.id }, `${options.what} failed`);
      const message = err instanceof Error ? err.message : String(err);
      results.push({ id: job.id, status: options.isPermanent?.(err) ? 'deadletter' : 'failed', output: { message } });
    }
  }
  return results;
}

/** Applies a batch of jobs at once (one transaction); when that fails, each job alone (`applyEachAlone`). */
export async function applyBatchOrEachAlone<J extends BatchJob>(jobs: J[], apply: (batch: J[]) => Promise<unknown>, logger: Logger, options: EachAloneOptions): Promise<JobResult[]> {
  try {
    await apply(jobs);
    return jobs.map((job) => ({ id: job.id, status: 'completed' }));
  } catch (err) {
    if (jobs.length > 1) logger.warn({ err, jobs: jobs.length }, `${options.what}: a batch failed; applying its jobs one by one`);
  }
  return applyEachAlone(jobs, apply, logger, options);
}
