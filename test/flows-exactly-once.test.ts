import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from './support/app.js';
import { jobRows, OUTBOX_EVENTS, query } from './support/database.js';
import { accept, startAnotherProcess } from './support/events.js';
import { eventually } from './support/eventually.js';
import { createFlow, flowsIdle, runsOf, runsWhen, startReceiver, finished } from './support/flows.js';

/**
 * A run starts exactly once per (flow, event) whatever the queue does: a
 * trigger job delivered again, duplicates worked by two processes at once, a
 * step job delivered twice; and a wait is a delayed job in PostgreSQL, so it
 * outlives the process that scheduled it.
 */
describe('flows: exactly once, restarts', () => {
  const app = useTestApp();
  let hook: Awaited<ReturnType<typeof startReceiver>>;
  let restarted: TestApp | undefined;

  beforeAll(async () => {
    hook = await startReceiver();
  });
  afterAll(async () => {
    await restarted?.stop();
    await hook?.close();
  });

  const runCounts = async (flowId: string) =>
    (await query<{ runs: number; events: number }>(app.databaseUrl, 'select count(*)::int as runs, count(distinct event_id)::int as events from events.flow_run where flow_id = $1', [flowId]))[0]!;

  /** A store's processed events as the flows read them from the outbox (their queue takes the same envelopes). */
  const triggerJobs = (storeId: string) =>
    query<{ data: Record<string, unknown> }>(app.databaseUrl, `select data from ${OUTBOX_EVENTS} where data->>'type' = 'custom_event.created' and data->>'storeId' = $1`, [storeId]);

  it('a trigger job delivered again starts no second run', async () => {
    const account = await app.createAccount('Retried trigger');
    const flow = await createFlow(app, account, { name: 'Once', trigger: { eventName: 'Once' }, steps: [{ webhook: { url: `${hook.url}/once` } }] });
    await accept(app, account, { eventName: 'Once', customer: { email: 'once@example.com' } });
    await runsWhen(app, account, flow.id, (r) => r.length === 1 && r.every(finished), 'the run');
    await flowsIdle(app.databaseUrl);

    // The same outbox event again, three times, through the flows' queue (an event handed over, retried from the dead letters).
    const [job] = await triggerJobs(account.storeId);
    await app.service.runtime.boss.insert('flow-triggers', [{ data: job!.data }, { data: job!.data }, { data: job!.data }]);
    await flowsIdle(app.databaseUrl);
    expect(await runCounts(flow.id)).toEqual({ runs: 1, events: 1 });
    expect(hook.received.filter((r) => r.path === '/once')).toHaveLength(1);
  });

  it('two worker processes taking duplicated trigger and step jobs start and run each (flow, event) once', async () => {
    const account = await app.createAccount('Two workers');
    const flow = await createFlow(app, account, { name: 'Race', trigger: { eventName: 'Race' }, steps: [{ wait: { seconds: 1 } }, { webhook: { url: `${hook.url}/race` } }] });
    const second = await startAnotherProcess(app);
    try {
      const n = 40;
      await Promise.all(Array.from({ length: n }, (_, i) => accept(app, account, { eventName: 'Race', customer: { email: `r${i}@example.com` } })));
      // Every outbox event again, twice, while both processes work: duplicates race the originals.
      const jobs = await eventually(async () => {
        const rows = await triggerJobs(account.storeId);
        return rows.length >= n ? rows : undefined;
      }, 'every trigger job');
      const copies = jobs.flatMap((j) => [{ data: j.data }, { data: j.data }]);
      await Promise.all([app.service.runtime.boss.insert('flow-triggers', copies.slice(0, n)), second.service.runtime.boss.insert('flow-triggers', copies.slice(n))]);
      // Step jobs duplicated too, while the runs wait: each copy carries the run's token.
      const steps = await eventually(async () => {
        const rows = (await jobRows(app.databaseUrl, { names: ['flow-steps'], storeId: account.storeId })).filter((j) => j.state === 'created');
        return rows.length > 0 ? rows : undefined;
      }, 'waiting step jobs');
      await second.service.runtime.boss.insert('flow-steps', steps.map((s) => ({ data: s.data as object })));

      await runsWhen(app, account, flow.id, (r) => r.length === n && r.every(finished), 'every run to finish');
      await flowsIdle(app.databaseUrl);
      expect(await runCounts(flow.id)).toEqual({ runs: n, events: n });
      const runs = await runsOf(app, account, flow.id);
      expect(runs.every((r) => r.status === 'COMPLETED')).toBe(true);
      // One webhook per run: a duplicated step job found the run already past its step.
      const ids = hook.received.filter((r) => r.path === '/race').map((r) => r.headers['webhook-id']);
      expect(ids).toHaveLength(n);
      expect(new Set(ids).size).toBe(n);
    } finally {
      await second.stop();
    }
  });

  it('a wait outlives a restart: the run continues in the next process where it was', async () => {
    const account = await app.createAccount('Restart');
    const flow = await createFlow(app, account, { name: 'Later', trigger: { eventName: 'Later' }, steps: [{ webhook: { url: `${hook.url}/before` } }, { wait: { seconds: 3 } }, { webhook: { url: `${hook.url}/after` } }] });
    await accept(app, account, { eventName: 'Later', customer: { email: 'later@example.com' } });
    const [waiting] = await runsWhen(app, account, flow.id, (r) => r.length === 1 && r[0]!.status === 'WAITING', 'the run to wait');
    expect(waiting!.steps.map((s) => [s.path, s.status])).toEqual([
      ['0', 'DONE'],
      ['1', 'WAITING'],
    ]);
    await app.stop();
    // A new process on the same database; nothing in memory survived.
    restarted = await startAnotherProcess(app);
    const [done] = await runsWhen(restarted, account, flow.id, (r) => r.length === 1 && r.every(finished), 'the run to finish after the restart');
    expect(done!.status).toBe('COMPLETED');
    expect(done!.steps.map((s) => [s.path, s.type, s.status])).toEqual([
      ['0', 'webhook', 'DONE'],
      ['1', 'wait', 'DONE'],
      ['2', 'webhook', 'DONE'],
    ]);
    expect(hook.received.filter((r) => r.path === '/before')).toHaveLength(1);
    expect(hook.received.filter((r) => r.path === '/after')).toHaveLength(1);
  });
});
