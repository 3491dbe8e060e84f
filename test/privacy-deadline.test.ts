import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from './support/app.js';
import { assertConforms } from './support/contract.js';
import { query } from './support/database.js';
import { drained, postEvent } from './support/events.js';
import { eventually } from './support/eventually.js';
import { countsOf, erasureCompleted, requestErasure, scan } from './support/privacy.js';
import { call } from './support/webhooks.js';

const DEADLINE_MS = 4000;
const LATE = 'request deadline passed: answered 503';
const GUS = { email: 'gus.long@example.com', phoneNumber: '+14155550142' };
const EVENTS = 1500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Privacy requests of a customer with a long history, under a short request deadline
 * (REQUEST_TIMEOUT_MS): the export is answered at once and streamed for as long as it takes; the
 * erasure is a job, so its request answers 202 at once and the work outlasts any deadline.
 */
describe('privacy requests and the request deadline', () => {
  let app: TestApp;
  let shop: TestAccount;
  const logs: Record<string, unknown>[] = [];

  beforeAll(async () => {
    app = await startTestApp({ REQUEST_TIMEOUT_MS: String(DEADLINE_MS), LOG_LEVEL: 'warn' }, 'all', { logs });
    shop = await app.createAccount('Deadline');
    for (let i = 0; i < EVENTS / 100; i++) {
      const events = Array.from({ length: 100 }, (_, k) => ({ eventName: 'Tick', customer: GUS, data: { n: i * 100 + k + 1, note: 'x'.repeat(200) } }));
      expect((await postEvent(app, shop, { events }, { path: '/bulk' })).status).toBe(202);
    }
    await drained(app.databaseUrl);
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
  });

  /** Runs `during` while `statement` holds its lock in another session, and the service waits on it. */
  async function whileHeld(statement: string, params: unknown[], during: () => Promise<void>): Promise<void> {
    const holder = new pg.Client({ connectionString: app.databaseUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query(statement, params);
      await during();
    } finally {
      await holder.query('commit').catch(() => undefined);
      await holder.end();
    }
  }

  const waitingOnLock = () =>
    eventually(
      async () => (await query(app.databaseUrl, `select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)).length > 0,
      'the service to wait on the held lock',
    );

  it('streams the export of a long history to its end, past the deadline', { timeout: 120_000 }, async () => {
    const url = `${app.baseUrl}/v2.2/stores/${shop.storeId}/customers/export`;
    let text: Promise<string> | undefined;
    let status = 0;
    let headers = new Headers();
    // The messages table held: the export sends its head and her events, then waits at the messages.
    await whileHeld('lock table events.message in access exclusive mode', [], async () => {
      const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${shop.apiSecret}`, 'content-type': 'application/json' }, body: JSON.stringify({ email: GUS.email }) });
      ({ status, headers } = res);
      text = res.text();
      await waitingOnLock();
      // The response began before the wait; the deadline passes while it waits.
      await sleep(DEADLINE_MS + 1000);
    });
    const body = await text!;
    await assertConforms('POST', url, new Response(body, { status, headers }));
    expect(status).toBe(200);
    const doc = JSON.parse(body) as { events: { id: string }[]; messages: unknown[] };
    expect(doc.events).toHaveLength(EVENTS);
    expect(new Set(doc.events.map((e) => e.id)).size).toBe(EVENTS);
    expect(doc.messages).toEqual([]);
    expect(logs.filter((l) => l.msg === LATE)).toEqual([]);
  });

  it('erases a long history as a job: the request answers at once, the work outlasts the deadline', { timeout: 180_000 }, async () => {
    const [first] = await query<{ id: string }>(
      app.databaseUrl,
      `select e.id from events.custom_event e join events.customer c on c.id = e.customer_id where c.email = $1 order by e.id limit 1`,
      [GUS.email],
    );
    let id = '';
    // One of her events held: the erasure waits at its first batch for longer than a request may take.
    await whileHeld('select 1 from events.custom_event where id = $1 for update', [first!.id], async () => {
      id = await requestErasure(app, shop, { phoneNumber: GUS.phoneNumber });
      await waitingOnLock();
      await sleep(DEADLINE_MS + 1000);
      const midway = await call(app, shop.apiSecret, 'GET', `/v2.2/stores/${shop.storeId}/customers/erasure/${id}`);
      expect(midway.status).toBe(200);
      expect(midway.body.erasure.status).toBe('RUNNING');
    });
    const erasure = await erasureCompleted(app, shop, id);
    expect(countsOf(erasure)).toMatchObject({ 'customer/REMOVED': 1, 'custom_event/REMOVED': EVENTS });
    expect(logs.filter((l) => l.msg === LATE)).toEqual([]);
    expect(await scan(app.databaseUrl, [GUS.email, GUS.phoneNumber])).toEqual([]);
  });
});
