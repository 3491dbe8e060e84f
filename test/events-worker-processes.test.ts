import { afterAll, describe, expect, it } from 'vitest';
import { stopCustomEventWorkers } from '../subgraphs/events/custom-event.job.js';
import { testEnv, useTestApp, type TestAccount } from './support/app.js';
import { query } from './support/database.js';
import { drained, expectAcceptanceOrder, orderedEvent, postEvent } from './support/events.js';
import { eventually } from './support/eventually.js';
import { spawnNode, type Spawned } from './support/processes.js';

/**
 * Acceptance order across worker processes: three `worker` processes (`npm run start:worker`) on
 * one database apply a backlog of several stores, one joining at the start and two while it
 * drains (the lanes change hands as they rebalance), and one of them killed mid-batch. Each store
 * ends as if one process had applied its events in acceptance order: the last field values win,
 * the first uniqueId wins (the single-process scenario of events-ordered-lanes.test.ts).
 */
describe('custom event processing in three worker processes', () => {
  const app = useTestApp({ EVENTS_RATE_LIMIT_PER_SECOND: '100000' });
  const workers: Spawned[] = [];
  const stores: TestAccount[] = [];
  const n = 60;

  afterAll(async () => {
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
    await query(app.databaseUrl, 'drop trigger if exists slow_events on events.custom_event; drop trigger if exists slow_claims on events.custom_event_unique_id').catch(() => undefined);
  });

  /** Worker processes holding lanes now, by pid, with how many each holds. */
  const laneHolders = async () =>
    query<{ pid: number; lanes: number }>(
      app.databaseUrl,
      `select l.pid, count(*)::int as lanes from pg_locks l join pg_stat_activity a on a.pid = l.pid
        where l.locktype = 'advisory' and l.granted and a.application_name = 'returns-platform-event-lanes' and a.datname = current_database()
          and l.classid = 2028001::oid group by l.pid`,
    );
  const stored = async () => (await query<{ n: number }>(app.databaseUrl, `select count(*)::int as n from events.custom_event where event_name = 'Step'`))[0]!.n;
  const startWorker = () => {
    const w = spawnNode(['dist/server/main.js', 'worker'], { ...testEnv(app.databaseUrl), LOG_LEVEL: 'warn', DB_POOL_SIZE: '4', EVENTS_BATCH_SIZE: '3', EVENTS_WORKER_CONCURRENCY: '4' });
    workers.push(w);
    return w;
  };

  it('keeps each store in acceptance order while lanes move between processes and one process dies mid-batch', { timeout: 240_000 }, async () => {
    // Only the worker processes apply events here.
    await stopCustomEventWorkers(app.service.runtime.boss);
    for (let s = 0; s < 12; s++) stores.push(await app.createAccount(`Worker processes ${s}`));
    // Each store's scenario in one bulk request: its events' acceptance order is their order in the request.
    for (const store of stores) {
      const res = await postEvent(app, store, { events: Array.from({ length: n }, (_, k) => orderedEvent(k)) }, { path: '/bulk' });
      expect(res.status).toBe(202);
    }
    // Slow transactions, so the backlog lasts while processes join, rebalance and die; and a random pause
    // between a transaction's claim and its customers' locks, where unordered processes would overtake each other.
    await query(
      app.databaseUrl,
      `create or replace function events.slow_events() returns trigger language plpgsql as $$ begin perform pg_sleep(0.1 + random() * 0.1); return null; end $$;
       create trigger slow_events after insert on events.custom_event for each statement execute function events.slow_events();
       create trigger slow_claims before insert on events.custom_event_unique_id for each statement execute function events.slow_events();`,
    );

    startWorker();
    await eventually(async () => (await stored()) > 0, 'the first worker to apply events', { timeoutMs: 90_000 });
    const second = startWorker();
    startWorker();
    const spread = await eventually(async () => {
      const holders = await laneHolders();
      // While they rebalance, a lane given up is free for a moment before another process takes it.
      return holders.length === 3 && holders.every((h) => h.lanes <= 22) && holders.reduce((sum, h) => sum + h.lanes, 0) === 64 ? holders : undefined;
    }, 'the three processes to share every lane', { timeoutMs: 90_000 });
    expect(spread.reduce((sum, h) => sum + h.lanes, 0)).toBe(64);
    expect(await stored()).toBeLessThan(stores.length * (n / 2));

    // One process dies with transactions in flight; its lanes go to the others.
    second.child.kill('SIGKILL');
    await second.exited;
    await eventually(async () => {
      const holders = await laneHolders();
      return holders.length === 2 && holders.reduce((sum, h) => sum + h.lanes, 0) === 64;
    }, 'the two others to take the dead process lanes', { timeoutMs: 30_000 });

    // The slowed transactions take their time, more so on a loaded machine.
    await drained(app.databaseUrl, { timeoutMs: 120_000 });
    await query(app.databaseUrl, 'drop trigger slow_events on events.custom_event; drop trigger slow_claims on events.custom_event_unique_id');
    for (const store of stores) await expectAcceptanceOrder(app.databaseUrl, store.storeId, n);
    // Every kept event stored once, and published once.
    expect(await stored()).toBe(stores.length * (n / 2));
    const [published] = await query<{ n: number }>(app.databaseUrl, `select count(*)::int as n from platform.outbox_event where type = 'custom_event.created' and store_id = any($1)`, [
      stores.map((s) => s.storeId),
    ]);
    expect(published!.n).toBe(stores.length * (n / 2));
  });
});
