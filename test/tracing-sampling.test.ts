// First: the sampler is read when the instrumentations are set up, before the service's modules load.
import { parseTraceparent, spans, spansOf } from './support/tracing-unsampled.js';
import { randomBytes } from 'node:crypto';
import { SpanKind } from '@opentelemetry/api';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { query } from './support/database.js';
import { postEvent } from './support/events.js';
import { eventually } from './support/eventually.js';
import { startReceiver, type Receiver } from './support/receiver.js';
import { createWebhook } from './support/webhooks.js';

/** A caller's `traceparent`: a new trace, sampled or not by the caller. */
function callerTrace(sampled: boolean): { traceId: string; spanId: string; header: string } {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, header: `00-${traceId}-${spanId}-${sampled ? '01' : '00'}` };
}

describe('head sampling at the edge (a sampler that starts no trace)', () => {
  const logs: Record<string, unknown>[] = [];
  const app = useTestApp({ LOG_LEVEL: 'info' }, { logs });
  const account = useTestAccount(app);
  const receivers: Receiver[] = [];
  afterAll(async () => {
    for (const r of receivers) await r.close();
  });
  const lineOf = (res: Response) => logs.find((l) => l.msg === 'request' && l.requestId === res.headers.get('x-request-id'));

  it('traces a request when its caller sampled it, and leaves out the others: no span, no trace ids in its log line', async () => {
    const path = `/v2.2/stores/${account.storeId}/returns`;
    const unsampled = await app.request(path, { token: account.apiSecret });
    const declined = callerTrace(false);
    const notByCaller = await app.request(path, { token: account.apiSecret, headers: { traceparent: declined.header } });
    const caller = callerTrace(true);
    const sampled = await app.request(path, { token: account.apiSecret, headers: { traceparent: caller.header } });
    expect([unsampled.status, notByCaller.status, sampled.status]).toEqual([200, 200, 200]);

    // The sampled one: the caller's trace, down to the subgraph's SQL.
    const server = await eventually(async () => spansOf(caller.traceId).find((s) => s.kind === SpanKind.SERVER), 'the request span');
    expect(server.parentSpanContext?.spanId).toBe(caller.spanId);
    await eventually(async () => spansOf(caller.traceId).find((s) => s.name === 'gateway.request'), 'the gateway span');
    expect(spansOf(caller.traceId).some((s) => s.name.startsWith('pg.query'))).toBe(true);
    expect(lineOf(sampled)).toMatchObject({ trace_id: caller.traceId, trace_flags: '01' });

    // The others made no span at all, and their lines carry no trace.
    expect(spansOf(declined.traceId)).toEqual([]);
    expect(new Set(spans().map((s) => s.spanContext().traceId))).toEqual(new Set([caller.traceId]));
    for (const res of [unsampled, notByCaller]) expect(lineOf(res)).not.toHaveProperty('trace_id');
  });

  it("an unsampled event carries no trace to its job, its outbox event or its delivery; a sampled one's delivery continues the caller's trace", async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const subscriber = await app.createAccount('Sampled webhooks');
    expect((await createWebhook(app, subscriber, { callback: { url: receiver.url }, topic: 'custom_event' })).status).toBe(201);

    expect((await postEvent(app, subscriber, { eventName: 'Unsampled', customer: { email: 'quiet@example.com' } })).status).toBe(202);
    const [quiet] = await eventually(async () => (receiver.received.length ? receiver.received : undefined), 'the first delivery');
    expect(quiet!.headers.traceparent).toBeUndefined();
    const carried = await query<{ n: number }>(
      app.databaseUrl,
      `select (select count(*)::int from events.event_inbox where store_id = $1 and job ? 'trace')
            + (select count(*)::int from platform.outbox_event where store_id = $1 and trace is not null) as n`,
      [subscriber.storeId],
    );
    expect(carried[0]!.n).toBe(0);

    const caller = callerTrace(true);
    const res = await app.request(`/v2.2/stores/${subscriber.storeId}/events`, {
      method: 'POST',
      token: subscriber.apiSecret,
      headers: { 'content-type': 'application/json', traceparent: caller.header },
      body: JSON.stringify({ eventName: 'Sampled', customer: { email: 'loud@example.com' } }),
    });
    expect(res.status).toBe(202);
    const loud = await eventually(async () => receiver.received[1], 'the second delivery');
    expect(parseTraceparent(loud.headers.traceparent)?.traceId).toBe(caller.traceId);
    await eventually(async () => spansOf(caller.traceId).find((s) => s.name === 'webhook delivery'), 'the delivery span');
    // The batches between start traces of their own, none sampled here.
    expect(spans().filter((s) => s.name.endsWith(' process'))).toEqual([]);
  });
});
