import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../platform/config.js';
import { createLogger } from '../platform/observability/logger.js';
import { ensureQueue, startQueue, type PgBoss } from '../platform/jobs/queue.js';
import { CUSTOM_EVENTS_QUEUE } from '../subgraphs/events/event-ingestion.service.js';
import { createCustomEventQueues } from '../subgraphs/events/custom-event.job.js';
import { createTestDatabase } from './support/database.js';

describe('ensureQueue: a queue holds the policy its code declares', () => {
  let boss: PgBoss;
  beforeAll(async () => {
    boss = await startQueue(await createTestDatabase(), createLogger('silent'), { supervise: false, poolSize: 2, timeouts: loadConfig({}).dbTimeouts });
  });
  afterAll(async () => {
    await boss?.stop({ graceful: false, close: true });
  });

  it('creates a missing queue with its policy', async () => {
    await ensureQueue(boss, 'test-created', { retryLimit: 7, retryDelay: 3, retryBackoff: true, retryDelayMax: 30 });
    expect(await boss.getQueue('test-created')).toMatchObject({ policy: 'standard', retryLimit: 7, retryDelay: 3, retryBackoff: true, retryDelayMax: 30 });
  });

  it('applies a changed policy to an existing queue: changed settings, and dropped ones back to their defaults', async () => {
    await ensureQueue(boss, 'test-dead');
    await ensureQueue(boss, 'test-changed', { retryLimit: 1, retryBackoff: true, retryDelayMax: 60, expireInSeconds: 30, notify: true });
    await ensureQueue(boss, 'test-changed', { retryLimit: 9, retryDelay: 4, deadLetter: 'test-dead' });
    expect(await boss.getQueue('test-changed')).toMatchObject({
      retryLimit: 9,
      retryDelay: 4,
      deadLetter: 'test-dead',
      retryBackoff: false,
      retryDelayMax: null,
      expireInSeconds: 15 * 60,
      notify: false,
    });
    // And a dead-letter queue dropped from the policy is no longer routed to.
    await ensureQueue(boss, 'test-changed', { retryLimit: 9, retryDelay: 4 });
    expect((await boss.getQueue('test-changed'))?.deadLetter).toBeNull();
  });

  it('leaves a queue that already holds its policy untouched (no write on every start)', async () => {
    const policy = { retryLimit: 3, retryDelay: 2, retryBackoff: true, retryDelayMax: 100, retentionSeconds: 3600, heartbeatSeconds: 10, notify: true };
    await ensureQueue(boss, 'test-unchanged', policy);
    const before = (await boss.getQueue('test-unchanged'))!.updatedOn;
    await ensureQueue(boss, 'test-unchanged', policy);
    await ensureQueue(boss, 'test-defaults');
    const defaults = (await boss.getQueue('test-defaults'))!.updatedOn;
    await ensureQueue(boss, 'test-defaults');
    expect((await boss.getQueue('test-unchanged'))!.updatedOn).toEqual(before);
    expect((await boss.getQueue('test-defaults'))!.updatedOn).toEqual(defaults);
  });

  it('refuses what pg-boss cannot change after creation (the policy kind), rather than ignoring it', async () => {
    await ensureQueue(boss, 'test-kind');
    await expect(ensureQueue(boss, 'test-kind', { policy: 'key_strict_fifo' })).rejects.toThrow(/test-kind exists as standard/);
  });

  it('brings the custom-events queue, created before its retry policy changed, to the current one (it used to be left as it was)', async () => {
    await boss.createQueue(CUSTOM_EVENTS_QUEUE, { retryLimit: 1, retryDelay: 0 });
    await createCustomEventQueues(boss);
    expect(await boss.getQueue(CUSTOM_EVENTS_QUEUE)).toMatchObject({ retryLimit: 5, retryDelay: 2, retryBackoff: true, retryDelayMax: 300, expireInSeconds: 60, deadLetter: `${CUSTOM_EVENTS_QUEUE}-dead` });
  });
});
