import { describe, expect, it } from 'vitest';
import { CUSTOM_EVENTS_QUEUE } from '../subgraphs/events/event-ingestion.service.js';
import { stopCustomEventWorkers } from '../subgraphs/events/custom-event.job.js';
import { deadLetterQueue } from '../platform/jobs/queue.js';
import { useTestAccount, useTestApp } from './support/app.js';
import { query } from './support/database.js';
import { accept, drained, expectAcceptanceOrder, orderedEvent, resumeEventWorkers, storedEvents } from './support/events.js';

/**
 * Several transactions in flight per worker (EVENTS_WORKER_CONCURRENCY) must not reorder what
 * order decides: a customer's fields end as the last event set them, and of two events with one
 * uniqueId the earlier is kept. Small transactions (EVENTS_BATCH_SIZE 3) and many lanes make
 * every transaction touch the customers the ones before it hold.
 */
describe('custom event processing with several transactions in flight', () => {
  const app = useTestApp({ EVENTS_BATCH_SIZE: '3', EVENTS_WORKER_CONCURRENCY: '4', EVENTS_RATE_LIMIT_PER_SECOND: '100000', LOG_LEVEL: 'warn' });
  const account = useTestAccount(app, 'Ordered lanes');

  it('applies a backlog in the order it was accepted: last field values win, the first uniqueId wins', async () => {
    const { boss } = app.service.runtime;
    await stopCustomEventWorkers(boss);
    const n = 60;
    // One request at a time, so the jobs' creation order is the acceptance order.
    for (let k = 0; k < n; k++) await accept(app, account, orderedEvent(k));
    await resumeEventWorkers(app);
    await drained(app.databaseUrl);
    await expectAcceptanceOrder(app.databaseUrl, account.storeId, n);
  });
});

describe('custom event processing: a failing transaction among several in flight', () => {
  // No retries: the bad event goes to the dead letters at its first failure.
  const app = useTestApp({ EVENTS_BATCH_SIZE: '3', EVENTS_WORKER_CONCURRENCY: '4', EVENTS_RATE_LIMIT_PER_SECOND: '100000', EVENTS_RETRY_LIMIT: '0' });

  it('a transaction that fails does not hold the others: its jobs are applied one by one, the bad one left to retry', async () => {
    const { boss } = app.service.runtime;
    const other = await app.createAccount('Ordered lanes, one bad event');
    await query(
      app.databaseUrl,
      `create function events.refuse_lane_poison() returns trigger language plpgsql as $$ begin raise exception 'poisoned event'; end $$;
       create trigger refuse_lane_poison before insert on events.custom_event for each row when (new.event_name = 'Poison') execute function events.refuse_lane_poison();`,
    );
    try {
      await stopCustomEventWorkers(boss);
      for (let k = 0; k < 30; k++) {
        await accept(app, other, { eventName: k === 10 ? 'Poison' : 'Step', customer: { email: `${['a', 'b', 'c'][k % 3]}@example.com` }, data: { k: k + 1 } });
      }
      await resumeEventWorkers(app);
      await drained(app.databaseUrl);
      const stored = await storedEvents(app.databaseUrl, other.storeId);
      expect(stored.map((e) => Number(e.data.k) - 1).sort((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, k) => k).filter((k) => k !== 10));
      const dead = await boss.findJobs<{ storeId: string; event: { eventName: string } }>(deadLetterQueue(CUSTOM_EVENTS_QUEUE), { queued: true });
      expect(dead.filter((j) => j.data.storeId === other.storeId).map((j) => j.data.event.eventName)).toEqual(['Poison']);
    } finally {
      await query(app.databaseUrl, 'drop trigger refuse_lane_poison on events.custom_event; drop function events.refuse_lane_poison()');
    }
  });
});
