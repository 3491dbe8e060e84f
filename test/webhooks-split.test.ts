import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, useTestApp, type TestApp } from './support/app.js';
import { query } from './support/database.js';
import { startReceiver, type Receiver } from './support/receiver.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';
import { commentOn, createWebhook } from './support/webhooks.js';
import { eventually } from './support/eventually.js';
import { seededRandom } from './support/random.js';

/**
 * Several worker processes on one database (split mode runs `worker` processes beside the
 * gateway): they share the lanes, never send two events of one subject at once, and keep the order.
 */
describe('webhook delivery with several worker processes', () => {
  // Retries a second apart, more of them than the receiver's planned failures (two per event), and a
  // send timeout no loaded machine reaches: a timeout is one more failure, and with three retries a
  // couple of them under load discarded an event and the test waited for it forever.
  const env = { WEBHOOK_RETRY_SCHEDULE: '1,1,1,1,1,1', WEBHOOK_TIMEOUT_MS: '10000' };
  const app = useTestApp(env);
  let workers: TestApp[] = [];
  let receiver: Receiver;
  beforeAll(async () => {
    workers = await Promise.all([1, 2].map(() => startTestApp(env, 'worker', { databaseUrl: app.databaseUrl })));
    receiver = await startReceiver();
  });
  afterAll(async () => {
    for (const w of workers) await w.stop();
    await receiver?.close();
  });

  it('three processes deliver 20 subjects x 10 changes to a flapping receiver, in order per subject, one in flight per subject', { timeout: 120_000 }, async () => {
    const account = await app.createAccount('Split');
    const created = await createWebhook(app, account, { callback: { url: receiver.url, auth: null }, topic: 'return' });
    expect(created.status).toBe(201);
    const inFlight = new Map<string, number>();
    let overlapped = false;
    const failures = new Map<string, number>();
    const random = seededRandom();
    receiver.answer(async (r) => {
      const subject = JSON.parse(r.body).return.id as string;
      inFlight.set(subject, (inFlight.get(subject) ?? 0) + 1);
      if (inFlight.get(subject)! > 1) overlapped = true;
      await new Promise((res) => setTimeout(res, 2 + random() * 5));
      inFlight.set(subject, inFlight.get(subject)! - 1);
      // At most two failures per event: the schedule (six retries) never discards one here.
      const id = r.headers['webhook-id'] as string;
      const failed = failures.get(id) ?? 0;
      if (failed < 2 && random() < 0.2) {
        failures.set(id, failed + 1);
        return { status: 500 };
      }
      return { status: 200 };
    });
    const order = orderBody({}, [{ id: 'l1', quantity: 100, price: '1.00' }]);
    await pushOrder(app, account, order);
    const subjects: string[] = [];
    for (let i = 0; i < 20; i++) subjects.push((await postReturn(app, account, returnBody(order.id as string, [{ lineItemId: 'l1', quantity: 1, reason: 'r' }]))).body.return.id);
    for (let round = 1; round < 10; round++) await Promise.all(subjects.map((id) => commentOn(app, account, id, `c${round}`)));
    let states: { state: string; n: number }[] = [];
    await eventually(async () => {
      states = await query<{ state: string; n: number }>(app.databaseUrl, `select state, count(*)::int as n from webhooks.message group by state`);
      // At least the 200 changes (a background job may add an update of a return: same notes, so the
      // order check below ignores it), and nothing left to send.
      return (states.find((r) => r.state === 'succeeded')?.n ?? 0) >= 200 && states.every((r) => r.state === 'succeeded') ? true : undefined;
    }, 'every event delivered', { timeoutMs: 100_000 }).catch((err: Error) => {
      throw new Error(`${err.message}; messages by state: ${JSON.stringify(states)}`);
    });
    expect(overlapped).toBe(false);
    const bySubject = new Map<string, number[]>();
    for (const r of receiver.received) {
      const body = JSON.parse(r.body);
      const list = bySubject.get(body.return.id) ?? [];
      if (list[list.length - 1] !== body.return.notes.length) list.push(body.return.notes.length);
      bySubject.set(body.return.id, list);
    }
    for (const id of subjects) expect(bySubject.get(id), id).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
