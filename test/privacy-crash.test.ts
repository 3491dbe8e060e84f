import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { query } from './support/database.js';
import { eventually } from './support/eventually.js';
import { ANN, NEEDLES, scan } from './support/privacy.js';
import { run, useServiceProcess } from './support/processes.js';
import { orderBody, returnBody } from './support/returns.js';

/**
 * An erasure cut off by a crash (SIGKILL) in the middle of its steps resumes in the next process
 * where the committed work left off: the finished step is not run again, its counts stay exact,
 * and the result leaves no trace. Driven through the admin CLI, as an operator would.
 */
describe('erasure: a crash in the middle, and the admin CLI', () => {
  const app = useServiceProcess({ LOG_LEVEL: 'silent' });
  const start = () => app.start();
  const cli = async (...args: string[]) => {
    const result = await run(process.execPath, ['dist/server/cli/admin-cli.js', ...args, '--json'], app.env);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as Record<string, any>;
  };
  const rest = async (token: string, method: string, path: string, body: unknown) => {
    const res = await fetch(`${app.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
  };
  const counts = (erasure: Record<string, any>) => Object.fromEntries((erasure.counts as { kind: string; action: string; count: number }[]).map((c) => [`${c.kind}/${c.action}`, c.count]));

  it('resumes after the process died, with exact counts, and leaves no trace', { timeout: 300_000 }, async () => {
    await start();
    const { storeId, apiSecret } = await cli('create-account', '--name', 'Crash privacy');
    await rest(apiSecret, 'POST', `/v2.2/stores/${storeId}/events`, { eventName: 'Placed Order', customer: ANN, data: { note: ANN.email } });
    await rest(apiSecret, 'POST', `/v2.2/stores/${storeId}/events`, { eventName: 'Viewed', customer: { phoneNumber: ANN.phoneNumber } });
    const order = orderBody({ customer: { email: ANN.email, firstName: 'Ann', phoneNumber: ANN.phoneNumber } }, [{ id: 'l1', quantity: 1, price: '5.00' }]);
    await rest(apiSecret, 'POST', `/v2.2/stores/${storeId}/custom/orders`, order);
    await rest(apiSecret, 'POST', `/v2.2/stores/${storeId}/returns`, returnBody(order.id as string, [{ lineItemId: 'l1', quantity: 1, reason: 'r' }]));
    // Her two events, and the return's creation as an event of the order's customer (flows on return outcomes).
    await eventually(async () => (await query(app.databaseUrl, 'select 1 from events.custom_event where store_id = $1', [storeId])).length === 3, 'her events to be processed');

    // Her order row held: the erasure finishes its events step, then stops in the returns step.
    const holder = new pg.Client({ connectionString: app.databaseUrl });
    await holder.connect();
    await holder.query('begin');
    await holder.query(`select 1 from returns."order" where store_id = $1 for update`, [storeId]);
    const requested = await cli('erase-customer', '--store', storeId, '--email', ANN.email);
    expect(requested).toMatchObject({ status: 'PENDING', requestedBy: 'email', suppression: 'DROP' });
    await eventually(async () => (await query(app.databaseUrl, `select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like '%update "order"%'`)).length > 0, 'the erasure to reach the held order', { timeoutMs: 60_000 });
    const midway = await cli('erasure-status', '--id', requested.id);
    expect(midway.status).toBe('RUNNING');
    expect(counts(midway)).toMatchObject({ 'customer/REMOVED': 1, 'custom_event/REMOVED': 3 });

    await app.kill();
    await holder.query('rollback');
    await holder.end();
    await start();

    const done = await eventually(async () => {
      const erasure = await cli('erasure-status', '--id', requested.id);
      return erasure.status === 'COMPLETED' ? erasure : undefined;
    }, 'the erasure to resume and complete', { timeoutMs: 150_000, intervalMs: 1000 });
    expect(counts(done)).toMatchObject({ 'customer/REMOVED': 1, 'custom_event/REMOVED': 3, 'order/ANONYMISED': 1, 'return/ANONYMISED': 1, 'suppression/SUPPRESSED': 3 });
    await eventually(async () => (await scan(app.databaseUrl, NEEDLES)).length === 0, 'no trace of her', { timeoutMs: 60_000, intervalMs: 1000 });

    // The other commands, and --wait.
    expect(await cli('data-retention', '--store', storeId, '--custom-event-days', '30', '--message-days', 'forever')).toMatchObject({ storeId, customEventDays: 30, messageDays: null, flowRunDays: 90 });
    expect(await cli('enforce-retention')).toEqual({ queued: true });
    await rest(apiSecret, 'POST', `/v2.2/stores/${storeId}/events`, { eventName: 'Hello', customer: { email: 'ivy@example.com' } });
    await eventually(async () => (await query(app.databaseUrl, `select 1 from events.customer where email = 'ivy@example.com'`)).length === 1, 'her profile');
    const waited = await cli('erase-customer', '--store', storeId, '--email', 'ivy@example.com', '--suppression', 'refuse', '--wait');
    expect(waited).toMatchObject({ status: 'COMPLETED', suppression: 'REFUSE' });
    const bad = await run(process.execPath, ['dist/server/cli/admin-cli.js', 'erase-customer', '--store', storeId, '--json'], app.env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/exactly one/);
  });
});
