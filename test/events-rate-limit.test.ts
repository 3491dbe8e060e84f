import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from './support/app.js';
import { query } from './support/database.js';
import { acceptedEvents, postEvent, startAnotherProcess } from './support/events.js';

const LIMIT = 5;
const event = { eventName: 'Tick', customer: { email: 'r@example.com' } };

describe('per-store rate limit of event creation', () => {
  const app = useTestApp({ EVENTS_RATE_LIMIT_PER_SECOND: String(LIMIT) });
  let second: TestApp;
  beforeAll(async () => {
    // A second facade process on the same database: the counters are shared through PostgreSQL.
    second = await startAnotherProcess(app, { EVENTS_RATE_LIMIT_PER_SECOND: String(LIMIT) });
  });
  afterAll(async () => {
    await second?.stop();
  });

  /** Sends `n` requests at once, alternating between the two processes. */
  async function burst(storeId: string, secret: string, n: number, path = '', body: unknown = event) {
    const bases = [app.baseUrl, second.baseUrl];
    return Promise.all(
      Array.from({ length: n }, (_, i) =>
        fetch(`${bases[i % 2]}/v2.2/stores/${storeId}/events${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      ),
    );
  }

  /** Windows the store's requests fell into: the limit holds per window, whatever the timing. */
  async function windows(storeId: string): Promise<number> {
    const [row] = await query<{ n: number }>(app.databaseUrl, 'select count(*)::int as n from events.event_rate_window where store_id = $1', [storeId]);
    return row!.n;
  }

  it('admits at most the limit per second across two processes and answers 429 with Retry-After and RateLimit headers', async () => {
    const account = await app.createAccount('Limited');
    const responses = await burst(account.storeId, account.apiSecret, 40);
    const accepted = responses.filter((r) => r.status === 202).length;
    const limited = responses.filter((r) => r.status === 429);
    expect(accepted + limited.length).toBe(40);
    expect(accepted).toBeGreaterThanOrEqual(1);
    expect(accepted).toBeLessThanOrEqual(LIMIT * (await windows(account.storeId)));
    expect(limited.length).toBeGreaterThan(0);
    const tooMany = limited[0]!;
    expect(tooMany.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(tooMany.headers.get('retry-after')).toBe('1');
    expect(tooMany.headers.get('ratelimit-policy')).toBe(`"events";q=${LIMIT};w=1`);
    expect(tooMany.headers.get('ratelimit')).toBe('"events";r=0;t=1');
    expect(await tooMany.json()).toMatchObject({ type: '/problems/rate-limited', status: 429 });
    // Only admitted requests were queued (and, by now, maybe stored).
    expect(await acceptedEvents(app.databaseUrl, account.storeId)).toBe(accepted);
  });

  it('counts per store: another store is not limited by the first', async () => {
    const a = await app.createAccount('Store A');
    const b = await app.createAccount('Store B');
    await burst(a.storeId, a.apiSecret, 20);
    const res = await postEvent(app, b, event);
    expect(res.status).toBe(202);
    expect(res.headers.get('ratelimit')).toMatch(/^"events";r=\d+;t=1$/);
  });

  it('counts a bulk request once', async () => {
    const account = await app.createAccount('Bulk limited');
    const bulk = { events: Array.from({ length: 20 }, () => event) };
    const responses = await burst(account.storeId, account.apiSecret, 2, '/bulk', bulk);
    expect(responses.map((r) => r.status)).toEqual([202, 202]);
    const [row] = await query<{ total: number }>(app.databaseUrl, 'select sum(count)::int as total from events.event_rate_window where store_id = $1', [account.storeId]);
    expect(row!.total).toBe(2);
  });
});
