import type { JobWithMetadata } from 'pg-boss';
import type { Logger } from '../observability/logger.js';
import { metrics } from '../observability/metrics.js';
import { ensureQueue, RETRIES, type PgBoss } from '../jobs/queue.js';
import { ERASURE_QUEUE, type ErasureRequests } from './erasure.service.js';
import { erasureLedger, type ErasureParticipant } from './participants.js';
import { mergeSubject, sameSubject } from './subject.js';

const erasures = metrics.counter('privacy_erasures_total', 'Customer erasures by outcome: completed, or failed (retries exhausted, dead-lettered).', ['outcome']);

/**
 * A big erasure may take a while, so the claim is long; the heartbeat shows the worker alive, and
 * the job of a worker that died is taken again seconds after its last heartbeat (and resumes).
 */
export async function createErasureQueue(boss: PgBoss): Promise<void> {
  await ensureQueue(boss, ERASURE_QUEUE, { ...RETRIES.erasures, expireInSeconds: 3600, heartbeatSeconds: 10, deadLetters: true });
}

/**
 * Runs (or resumes) one erasure: each part that has not finished, in order, first telling what it
 * holds about the person (kept with the request, sealed), then erasing it; then the request
 * completes and `customer.erased` goes out. Every step is idempotent, so a retry after a crash
 * continues where the last committed work left off.
 */
export async function runErasure(requests: ErasureRequests, participants: readonly ErasureParticipant[], erasureId: string): Promise<void> {
  const state = await requests.state(erasureId);
  if (!state?.subject || state.status === 'COMPLETED') return;
  await requests.markRunning(erasureId);
  let subject = state.subject;
  for (const participant of participants) {
    if (state.finished.has(participant.part)) continue;
    const grown = mergeSubject(subject, await participant.collect(state.work, subject));
    if (!sameSubject(grown, subject)) {
      subject = grown;
      await requests.saveSubject(erasureId, subject);
    }
    await participant.erase(state.work, subject, erasureLedger);
  }
  await requests.complete(erasureId, subject);
}

export async function startErasureWorker(boss: PgBoss, requests: ErasureRequests, participants: readonly ErasureParticipant[], logger: Logger): Promise<void> {
  await boss.work(ERASURE_QUEUE, { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: 0.5 }, async ([job]: JobWithMetadata<{ erasureId: string }>[]) => {
    const { erasureId } = job!.data;
    try {
      await runErasure(requests, participants, erasureId);
      erasures.inc({ outcome: 'completed' });
      logger.info({ erasureId }, 'customer erased');
    } catch (err) {
      // The last attempt leaves the request FAILED until its dead letter is retried.
      if (job!.retryCount >= job!.retryLimit) {
        await requests.markFailed(erasureId).catch(() => {});
        erasures.inc({ outcome: 'failed' });
      }
      throw err;
    }
  });
}
