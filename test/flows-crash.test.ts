import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN } from './support/app.js';
import { query } from './support/database.js';
import { eventually } from './support/eventually.js';
import { startReceiver } from './support/flows.js';
import { useServiceProcess } from './support/processes.js';

/**
 * A process killed (SIGKILL) in the middle of a run's step, its webhook
 * request still in flight and its transaction open: the run is taken again
 * by the next process (the dead worker's heartbeat stops), the step is sent
 * again with the same webhook id (at least once), and the run finishes once.
 */
describe('flows: a worker killed mid-step', () => {
  const app = useServiceProcess({ LOG_LEVEL: 'silent', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '1,1,2' });
  const start = () => app.start();
  let hook: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    hook = await startReceiver();
  });
  afterAll(() => hook?.close());
  const gql = async <T>(q: string, token: string, variables: Record<string, unknown> = {}) => {
    const res = await fetch(`${app.baseUrl}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ query: q, variables }) });
    const body = (await res.json()) as { data?: T; errors?: unknown };
    if (!body.data) throw new Error(JSON.stringify(body.errors));
    return body.data;
  };

  it('finishes the run once after the restart, the interrupted step sent again with the same id', { timeout: 150_000 }, async () => {
    await start();
    const { createAccount } = await gql<{ createAccount: { storeId: string; apiSecret: string } }>('mutation { createAccount(input: {name: "Crash flows"}) { storeId apiSecret } }', TEST_ADMIN_TOKEN);
    const { storeId, apiSecret } = createAccount;
    const { createFlow } = await gql<{ createFlow: { id: string } }>(`mutation($s: ID!, $i: FlowInput!) { createFlow(storeId: $s, input: $i) { id } }`, apiSecret, {
      s: storeId,
      i: { name: 'Crash', trigger: { eventName: 'Crash' }, steps: [{ webhook: { url: `${hook.url}/first` } }, { webhook: { url: `${hook.url}/second` } }] },
    });
    // The first delivery never gets an answer: the process is killed while it waits for one.
    let firstSeen = false;
    hook.status.next = (r) => {
      if (r.path !== '/first' || firstSeen) return 200;
      firstSeen = true;
      return 0;
    };
    const accepted = await fetch(`${app.baseUrl}/v2.2/stores/${storeId}/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiSecret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ eventName: 'Crash', customer: { email: 'crash@example.com' } }),
    });
    expect(accepted.status).toBe(202);
    await eventually(async () => firstSeen, 'the first webhook to arrive', { timeoutMs: 20_000 });
    await app.kill();
    expect(await query(app.databaseUrl, 'select status from events.flow_run_step')).toEqual([]);

    await start();
    const run = await eventually(
      async () => {
        const rows = await query<{ status: string; id: string }>(app.databaseUrl, 'select id, status from events.flow_run where flow_id = $1', [createFlow.id]);
        return rows.length === 1 && rows[0]!.status === 'COMPLETED' ? rows[0] : undefined;
      },
      'the run to complete after the restart',
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    const steps = await query<{ path: string; status: string }>(app.databaseUrl, 'select path, status from events.flow_run_step where run_id = $1 order by path', [run.id]);
    expect(steps).toEqual([
      { path: '0', status: 'DONE' },
      { path: '1', status: 'DONE' },
    ]);
    const first = hook.received.filter((r) => r.path === '/first');
    expect(first.length).toBeGreaterThanOrEqual(2);
    expect(new Set(first.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(hook.received.filter((r) => r.path === '/second')).toHaveLength(1);
  });
});
