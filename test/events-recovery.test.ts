import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../platform/logger.js';
import { deadLetterQueue } from '../platform/dead-letters.js';
import { CUSTOM_EVENTS_QUEUE } from '../subgraphs/events/custom-event.ingestion.js';
import { processCustomEventBatch } from '../subgraphs/events/custom-event.job.js';
import { CustomEventService } from '../subgraphs/events/custom-event.service.js';
import { useTestApp, type TestApp } from './support/app.js';
import { query } from './support/database.js';
import { accept, drained, postEvent, startAnotherProcess, storedEvents } from './support/events.js';
import { eventually } from './support/eventually.js';

describe('custom event jobs: crash recovery and dead letters', () => {
  const app = useTestApp();
  let restarted: TestApp | undefined;
  afterAll(async () => {
    await restarted?.stop();
  });

  it('loses nothing and doubles nothing when a worker stops mid-batch and another takes over', async () => {
    const account = await app.createAccount('Crash');
    const { boss, deps } = app.service.runtime;
    await boss.offWork(CUSTOM_EVENTS_QUEUE);
    for (let i = 0; i < 10; i++) await accept(app, account, { eventName: 'Crash', uniqueId: `u${i}`, customer: { email: `c${i % 3}@example.com` }, data: { i: i + 1 } });

    // A worker claims the batch, commits the first half of its events, and dies before completing any job.
    const jobs = await boss.fetch(CUSTOM_EVENTS_QUEUE, { batchSize: 10 });
    expect(jobs).toHaveLength(10);
    const service = new CustomEventService(deps.events!.orm, boss);
    await service.inTransaction((em, learned) => service.processBatch(em, jobs.slice(0, 5).map((j) => j.data), learned));
    expect(await storedEvents(app.databaseUrl, account.storeId)).toHaveLength(5);
    await app.stop();

    // The claims lapse (as they do a minute after a worker dies) and a new process works the jobs again.
    await query(app.databaseUrl, `update pgboss.job set started_on = now() - interval '1 hour' where name = $1 and state = 'active'`, [CUSTOM_EVENTS_QUEUE]);
    restarted = await startAnotherProcess(app);
    await restarted.service.runtime.boss.supervise(CUSTOM_EVENTS_QUEUE);
    await drained(app.databaseUrl);

    const events = await storedEvents(app.databaseUrl, account.storeId);
    expect(events.map((e) => e.unique_id).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `u${i}`).sort());
    const published = await query(app.databaseUrl, `select 1 from pgboss.job where name = 'webhooks-outbox' and data->>'type' = 'custom_event.created' and data->>'storeId' = $1`, [
      account.storeId,
    ]);
    expect(published).toHaveLength(10);
    const [customers] = await query<{ n: number }>(app.databaseUrl, 'select count(*)::int as n from events.customer where store_id = $1', [account.storeId]);
    expect(customers!.n).toBe(3);
  });

  it('settles each job of a failing batch on its own, dead-letters the one that keeps failing, and lets the admin list and retry it', async () => {
    const service = restarted!;
    const graphql = async <T>(q: string, variables: Record<string, unknown> = {}, token = app.adminToken) => {
      const { data, errors } = await service.graphql<T>(q, variables, token);
      return { data, errors };
    };
    const account = await service.createAccount('Poison');
    // An operator-visible fault: the database refuses one event name until the fault is fixed.
    await query(
      app.databaseUrl,
      `create function events.refuse_poison() returns trigger language plpgsql as $$ begin raise exception 'poisoned event'; end $$;
       create trigger refuse_poison before insert on events.custom_event for each row when (new.event_name = 'Poison') execute function events.refuse_poison();`,
    );
    const post = (eventName: string) => postEvent(service, account, { eventName, customer: { email: 'p@example.com' } });
    // Shorten the retries of this test's jobs: one retry, no delay.
    await service.service.runtime.boss.updateQueue(CUSTOM_EVENTS_QUEUE, { retryLimit: 1, retryDelay: 0, retryBackoff: false });
    expect((await post('Fine')).status).toBe(202);
    expect((await post('Poison')).status).toBe(202);
    expect((await post('Also fine')).status).toBe(202);

    const dead = await eventually(async () => {
      const result = await graphql<{ deadLetteredCustomEvents: { id: string; storeId: string; eventName: string; error: { message: string } | null }[] }>(
        '{ deadLetteredCustomEvents { id storeId eventName error } }',
      );
      const mine = result.data?.deadLetteredCustomEvents.filter((d) => d.storeId === account.storeId) ?? [];
      return mine.length ? mine : undefined;
    }, 'the poisoned event in the dead-letter queue');
    expect(dead).toHaveLength(1);
    expect(dead[0]!.eventName).toBe('Poison');
    await drained(app.databaseUrl);
    expect((await storedEvents(app.databaseUrl, account.storeId)).map((e) => e.event_name).sort()).toEqual(['Also fine', 'Fine']);

    const forbidden = await graphql('{ deadLetteredCustomEvents { id } }', {}, account.apiSecret);
    expect(forbidden.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    // The same letter in the platform-wide view of every work queue's dead letters.
    const all = await graphql<{ deadLetters: { id: string; queue: string }[]; deadLetterCounts: { queue: string; count: number }[] }>(
      '{ deadLetters(queue: "custom-events") { id queue } deadLetterCounts { queue count } }',
    );
    expect(all.data!.deadLetters.map((d) => d.id)).toContain(dead[0]!.id);
    expect(all.data!.deadLetterCounts).toEqual(expect.arrayContaining([{ queue: 'custom-events', count: expect.any(Number) }, { queue: 'inventory-restock', count: 0 }]));

    await query(app.databaseUrl, 'drop trigger refuse_poison on events.custom_event');
    const retried = await graphql<{ retryDeadLetteredCustomEvents: number }>('mutation($ids: [ID!]) { retryDeadLetteredCustomEvents(ids: $ids) }', { ids: [dead[0]!.id] });
    expect(retried.data?.retryDeadLetteredCustomEvents).toBe(1);
    await eventually(async () => ((await storedEvents(app.databaseUrl, account.storeId)).length === 3 ? true : undefined), 'the retried event');
    const after = await graphql<{ deadLetteredCustomEvents: { storeId: string }[] }>('{ deadLetteredCustomEvents { storeId } }');
    expect(after.data!.deadLetteredCustomEvents.filter((d) => d.storeId === account.storeId)).toHaveLength(0);
  });

  it('dead-letters job data that is not a custom event at once', async () => {
    const { boss } = restarted!.service.runtime;
    const id = await boss.send(CUSTOM_EVENTS_QUEUE, { not: 'an event' });
    const dead = await eventually(async () => {
      const jobs = await boss.findJobs<{ not?: string }>(deadLetterQueue(CUSTOM_EVENTS_QUEUE), { queued: true });
      return jobs.find((j) => j.sourceId === id);
    }, 'the malformed job in the dead-letter queue');
    expect(dead.data).toEqual({ not: 'an event' });
    const results = await processCustomEventBatch(new CustomEventService(restarted!.service.runtime.deps.events!.orm, boss), [{ id: 'x', data: { nope: 1 } }], createLogger('silent'));
    expect(results).toEqual([{ id: 'x', status: 'deadletter', output: { message: 'job data is not a custom event job' } }]);
  });
});
