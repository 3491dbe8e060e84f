import { beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, useTestAccount, useTestApp } from './support/app.js';
import { query } from './support/database.js';
import { postEvent } from './support/events.js';
import { eventually } from './support/eventually.js';
import { stopCustomEventWorkers } from '../subgraphs/events/custom-event.job.js';

interface Problem {
  type: string;
  status: number;
  detail: string;
  errors?: { pointer: string; detail: string }[];
}

/**
 * POST /events and /events/bulk skip GraphQL and call the events subgraph's
 * acceptance path directly; the mutations call the same code. Both must
 * answer the same input the same way.
 */
describe('event creation: REST (direct) and GraphQL answer alike', () => {
  const app = useTestApp({ EVENTS_RATE_LIMIT_PER_SECOND: '1000' });
  const acme = useTestAccount(app, 'Alike');

  const viaGraphQL = async (mutation: 'createCustomEvent' | 'createCustomEvents', value: unknown) => {
    const arg = mutation === 'createCustomEvent' ? 'event' : 'body';
    const selection = mutation === 'createCustomEvent' ? 'queued' : 'accepted rejected results { index status error }';
    const res = await app.graphql<Record<string, unknown>>(`mutation($s: ID!, $v: JSON!) { ${mutation}(storeId: $s, ${arg}: $v) { ${selection} } }`, { s: acme.storeId, v: value }, acme.apiSecret);
    return res;
  };

  const invalidBodies: [string, unknown][] = [
    ['missing customer', { eventName: 'E' }],
    ['every violation at once', { eventName: '', customer: { email: 'x', phoneNumber: '1' }, value: 'a', uniqueId: '' }],
    ['a string over 100 KB', { eventName: 'E', customer: { email: 'a@example.com' }, data: { note: 'x'.repeat(100 * 1024 + 1) } }],
    ['an impossible timestamp', { eventName: 'E', customer: { email: 'a@example.com' }, eventTimestamp: '2026-02-30T10:00:00Z' }],
    ['more than 400 data properties', { eventName: 'E', customer: { email: 'a@example.com' }, data: Object.fromEntries(Array.from({ length: 401 }, (_, i) => [`k${i}`, i + 1])) }],
    ['not an object', ['E']],
  ];

  it.each(invalidBodies)('%s: the same 400 and pointers through REST and GraphQL', async (_name, body) => {
    const rest = await postEvent(app, acme, body);
    const graphql = await viaGraphQL('createCustomEvent', body);
    if (Array.isArray(body)) {
      // REST refuses a non-object body at the door (every route takes an object); GraphQL's JSON argument reaches the rules.
      expect(rest.status).toBe(400);
      expect(graphql.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', problem: 'validation-failed' });
      return;
    }
    expect(rest.status).toBe(400);
    const problem = (await rest.json()) as Problem;
    expect(graphql.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', problem: 'validation-failed', errors: problem.errors });
    expect(graphql.errors?.[0]?.message).toBe(problem.detail);
  });

  it('bulk: the same per-event results through REST and GraphQL', async () => {
    const body = { events: [{ eventName: 'Ok', customer: { email: 'ok@example.com' } }, { eventName: 'Bad', customer: {} }] };
    const rest = await postEvent(app, acme, body, { path: '/bulk' });
    expect(rest.status).toBe(202);
    const graphql = (await viaGraphQL('createCustomEvents', body)).data!.createCustomEvents as { results: { error: unknown }[] };
    // GraphQL answers every selected field (a queued event's error is null); REST leaves it out.
    const results = graphql.results.map(({ error, ...r }) => (error === null ? r : { ...r, error }));
    expect({ ...graphql, results }).toEqual(await rest.json());
  });

  it('the per-store limit is one budget shared by REST and GraphQL', async () => {
    const limited = await startTestApp({ EVENTS_RATE_LIMIT_PER_SECOND: '3' }, 'all', { databaseUrl: app.databaseUrl });
    try {
      const account = await limited.createAccount('Shared budget');
      const event = { eventName: 'E', customer: { email: 'b@example.com' } };
      const viaGraphQL = async () =>
        ((await limited.graphql(`mutation($s: ID!, $v: JSON!) { createCustomEvent(storeId: $s, event: $v) { queued } }`, { s: account.storeId, v: event }, account.apiSecret)).errors?.[0]?.extensions?.code as string) ??
        'queued';
      // A burst through both doors at once.
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? postEvent(limited, account, event).then((r) => r.status) : viaGraphQL())));
      const accepted = answers.filter((a) => a === 202 || a === 'queued').length;
      // The limit holds per one-second window, whatever the timing: at most 3 per window the burst fell into.
      const [windows] = await query<{ n: number }>(limited.databaseUrl, 'select count(*)::int as n from events.event_rate_window where store_id = $1', [account.storeId]);
      expect(accepted).toBeLessThanOrEqual(3 * windows!.n);
      expect(answers.filter((a) => a === 429 || a === 'RATE_LIMITED').length).toBeGreaterThan(0);
    } finally {
      await limited.stop();
    }
  });
});

describe('event creation back-pressure', () => {
  const app = useTestApp({ EVENTS_MAX_BACKLOG: '5', EVENTS_RATE_LIMIT_PER_SECOND: '1000' });
  const acme = useTestAccount(app, 'Backlog');
  beforeAll(async () => {
    // Nothing processes custom events here, so the backlog builds.
    await stopCustomEventWorkers(app.service.runtime.boss);
  });

  it('answers 503 with Retry-After (a problem body) once more events wait than EVENTS_MAX_BACKLOG, and accepts again once they are processed', async () => {
    const event = { eventName: 'E', customer: { email: 'q@example.com' } };
    for (let i = 0; i < 6; i++) expect((await postEvent(app, acme, event)).status).toBe(202);
    // The depth is read at most once a second: wait for the guard to see the backlog.
    const refused = await eventually(
      async () => {
        const res = await postEvent(app, acme, event);
        return res.status === 503 ? res : undefined;
      },
      'the backlog guard to refuse',
      { intervalMs: 100 },
    );
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await refused.json()) as Problem).type).toBe('/problems/service-unavailable');
    const graphql = await app.graphql(`mutation($s: ID!, $v: JSON!) { createCustomEvent(storeId: $s, event: $v) { queued } }`, { s: acme.storeId, v: event }, acme.apiSecret);
    expect(graphql.errors?.[0]?.extensions).toMatchObject({ code: 'SERVICE_UNAVAILABLE', problem: 'service-unavailable' });

    // The backlog processed (here: removed), the door opens again.
    await query(app.databaseUrl, 'delete from events.event_inbox');
    const accepted = await eventually(async () => (await postEvent(app, acme, event)).status === 202, 'the backlog guard to accept again', { intervalMs: 100 });
    expect(accepted).toBe(true);
  });
});
