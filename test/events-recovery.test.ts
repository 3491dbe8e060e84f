import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { listDeadLetters } from '../platform/jobs/dead-letters.js';
import { CUSTOM_EVENTS_QUEUE } from '../subgraphs/events/event-ingestion.service.js';
import { stopCustomEventWorkers } from '../subgraphs/events/custom-event.job.js';
import { CustomEventService } from '../subgraphs/events/custom-event.service.js';
import { useTestApp, type TestApp } from './support/app.js';
import { query } from './support/database.js';
import { accept, drained, postEvent, resumeEventWorkers, startAnotherProcess, storedEvents } from './support/events.js';
import { eventually } from './support/eventually.js';

describe('custom event jobs: crash recovery and dead letters', () => {
  const app = useTestApp();
  let restarted: TestApp | undefined;
  afterAll(async () => {
    await restarted?.stop();
  });

  it('loses nothing and doubles nothing when a worker dies mid-batch, or after storing events it had not taken out of the inbox', async () => {
    const account = await app.createAccount('Crash');
    const { boss, deps } = app.service.runtime;
    await stopCustomEventWorkers(boss);
    for (let i = 0; i < 10; i++) await accept(app, account, { eventName: 'Crash', uniqueId: `u${i}`, customer: { email: `c${i % 3}@example.com` }, data: { i: i + 1 } });

    // Half the events stored without being taken out of the inbox (as by a dead letter retried after
    // its event was stored, or a transfer of an event queued by an earlier version).
    const waiting = await query<{ job: unknown }>(app.databaseUrl, 'select job from events.event_inbox where store_id = $1 order by seq', [account.storeId]);
    expect(waiting).toHaveLength(10);
    const service = new CustomEventService(deps.events!.orm);
    await service.inTransaction((em, learned) => service.processBatch(em, waiting.slice(0, 5).map((j) => j.job), learned));
    expect(await storedEvents(app.databaseUrl, account.storeId)).toHaveLength(5);

    // A worker holds every event in a transaction and dies mid-batch (its connection goes with it).
    const dying = new pg.Client({ connectionString: app.databaseUrl });
    await dying.connect();
    dying.on('error', () => {});
    await dying.query('begin');
    await dying.query('select seq from events.event_inbox where store_id = $1 for update', [account.storeId]);
    await dying.query(`insert into events.customer (id, store_id, email, created_at, updated_at) values ('cus_dying', $1, 'dying@example.com', now(), now())`, [account.storeId]);
    await app.stop();

    // Another process starts; its worker skips what the dying one holds, and takes it once it is gone.
    restarted = await startAnotherProcess(app);
    await query(app.databaseUrl, `select pg_terminate_backend(pid) from pg_stat_activity where pid = $1`, [(dying as unknown as { processID: number }).processID]);
    await drained(app.databaseUrl);

    const events = await storedEvents(app.databaseUrl, account.storeId);
    expect(events.map((e) => e.unique_id).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `u${i}`).sort());
    // Every event is published once: the five stored earlier when they were stored, the others now.
    const published = await query(app.databaseUrl, `select 1 from platform.outbox_event where type = 'custom_event.created' and store_id = $1`, [account.storeId]);
    expect(published).toHaveLength(10);
    const customers = await query<{ email: string }>(app.databaseUrl, 'select email from events.customer where store_id = $1 order by email', [account.storeId]);
    expect(customers.map((c) => c.email)).toEqual(['c0@example.com', 'c1@example.com', 'c2@example.com']);
  });

  it('settles each event of a failing batch on its own, dead-letters the one that keeps failing, and lets the admin list and retry it', async () => {
    // One retry, no delay: the restarted process of the test above, started with the test's retry settings.
    await restarted!.stop();
    restarted = await startAnotherProcess(app, { EVENTS_RETRY_LIMIT: '1', EVENTS_RETRY_DELAY_SECONDS: '0' });
    const service = restarted;
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

  it('dead-letters job data that is not a custom event at once, and lists it with why', async () => {
    const { boss } = restarted!.service.runtime;
    await boss.send(CUSTOM_EVENTS_QUEUE, { not: 'an event' });
    const dead = await eventually(async () => {
      const letters = await listDeadLetters(boss, CUSTOM_EVENTS_QUEUE, 500);
      return letters.find((l) => (l.data as { not?: string }).not === 'an event');
    }, 'the malformed job in the dead-letter queue');
    expect(dead.data).toEqual({ not: 'an event' });
    expect(JSON.stringify(dead.error)).toContain('job data is not a custom event job');
  });

  it('moves events queued in pg-boss by an earlier version into the inbox, and processes them once', async () => {
    const { boss } = restarted!.service.runtime;
    const account = await restarted!.createAccount('Queued before the inbox');
    await stopCustomEventWorkers(boss);
    // What ingestion queued before the inbox: the job of an accepted event (twice: a retried send).
    const job = { eventId: 'evt_01M8QUEUEDBEFORE0000000001', storeId: account.storeId, receivedAt: new Date().toISOString(), event: { eventName: 'Old', customer: { email: 'old@example.com' } } };
    await boss.send(CUSTOM_EVENTS_QUEUE, job);
    await boss.send(CUSTOM_EVENTS_QUEUE, job);
    await eventually(async () => ((await query(app.databaseUrl, 'select 1 from events.event_inbox where event_id = $1', [job.eventId])).length === 1 ? true : undefined), 'the job moved into the inbox');
    await resumeEventWorkers(restarted!);
    await drained(app.databaseUrl);
    expect((await storedEvents(app.databaseUrl, account.storeId)).map((e) => e.id)).toEqual([job.eventId]);
  });
});
