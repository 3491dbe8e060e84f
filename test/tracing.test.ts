// First: the instrumentations must be in place before the service's modules load.
import { parentOf, ancestry, parseTraceparent, serverSpan, spans, spansOf } from './support/tracing.js';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { query } from './support/database.js';
import { postEvent } from './support/events.js';
import { eventually } from './support/eventually.js';
import { createFlow, runsOf } from './support/flows.js';
import { startReceiver, type Receiver } from './support/receiver.js';
import { createWebhook } from './support/webhooks.js';

/** Whether `span` links to a span of the trace `traceId`. */
const linksTo = (span: ReadableSpan, traceId: string) => span.links.some((l) => l.context.traceId === traceId);

/** The span named `name` in the trace, once it ended (spans are exported when they end, after the response). */
const ended = (traceId: string, name: string) => eventually(async () => spansOf(traceId).find((s) => s.name === name), `the span ${name}`);

describe('tracing (OpenTelemetry, exported to memory)', () => {
  const logs: Record<string, unknown>[] = [];
  const app = useTestApp({ LOG_LEVEL: 'info', WEBHOOK_RETRY_SCHEDULE: '1,1,1' }, { logs });
  const account = useTestAccount(app);
  const receivers: Receiver[] = [];
  afterAll(async () => {
    for (const r of receivers) await r.close();
  });

  it('a REST request is one trace: the facade, the gateway, the subgraph fetch and its SQL; its log line carries the trace and span ids', async () => {
    const res = await app.request(`/v2.2/stores/${account.storeId}/returns`, { token: account.apiSecret });
    expect(res.status).toBe(200);
    const server = await eventually(async () => serverSpan('GET', '/v2.2/stores/:storeId/returns'), 'the request span');
    const traceId = server.spanContext().traceId;
    await ended(traceId, 'gateway.request');
    const trace = spansOf(traceId);
    expect(trace.map((s) => s.name)).toEqual(expect.arrayContaining(['gateway.request', 'gateway.plan', 'gateway.fetch', 'gateway.postprocessing']));
    // One tree: every span of the request hangs from its server span.
    for (const span of trace.filter((s) => s !== server)) expect(ancestry(span, trace).at(-1), span.name).toBe(server.name);
    // The returns subgraph's operation runs under the gateway's fetch, and its SQL under that.
    const fetch = trace.find((s) => s.name === 'gateway.fetch')!;
    expect(fetch.attributes.service).toBe('returns');
    const operation = trace.find((s) => parentOf(s, trace) === fetch && s.name.includes('ListReturns'));
    expect(operation, trace.map((s) => s.name).join(', ')).toBeDefined();
    const sql = trace.filter((s) => isSql(s) && ancestry(s, trace).includes(operation!.name));
    expect(sql.length).toBeGreaterThan(0);

    const line = logs.find((l) => l.msg === 'request' && l.requestId === res.headers.get('x-request-id'));
    expect(line).toMatchObject({ trace_id: traceId, trace_flags: '01' });
    expect(trace.map((s) => s.spanContext().spanId)).toContain(line!.span_id);
  });

  it('a GraphQL query across two subgraphs fetches from each under one gateway request', async () => {
    await query(app.databaseUrl, `insert into events.customer (id, store_id, email) values ('cus_traced', $1, 'traced@example.com')`, [account.storeId]);
    const result = await app.graphql(
      `query TracedCustomer($s: ID!) { customer(storeId: $s, email: "traced@example.com") { id email returns { edges { node { id } } } } }`,
      { s: account.storeId },
      account.apiSecret,
    );
    expect(result.errors).toBeUndefined();
    const request = await eventually(async () => spans().find((s) => s.name === 'gateway.request' && s.attributes['graphql.operation.name'] === 'TracedCustomer'), 'the gateway request span');
    const traceId = request.spanContext().traceId;
    const server = await eventually(async () => spansOf(traceId).find((s) => s.kind === SpanKind.SERVER), 'the request span');
    const trace = spansOf(traceId);
    const fetches = trace.filter((s) => s.name === 'gateway.fetch');
    expect(fetches.map((f) => f.attributes.service).sort()).toEqual(['events', 'returns']);
    for (const fetch of fetches) {
      expect(ancestry(fetch, trace)).toEqual(expect.arrayContaining(['gateway.execute', 'gateway.request', server.name]));
      // Each subgraph's own work, and the SQL it ran, under its fetch.
      const below = trace.filter((s) => ancestry(s, trace).includes('gateway.fetch') && parentOf(s, trace) === fetch);
      expect(below.length, `${fetch.attributes.service}: ${trace.map((s) => s.name).join(', ')}`).toBeGreaterThan(0);
      const sql = trace.filter((s) => isSql(s) && isBelow(s, fetch, trace));
      expect(sql.length, `SQL under the ${fetch.attributes.service} fetch`).toBeGreaterThan(0);
    }
  });

  it('an accepted event, its processing, its outbox event and its webhook delivery are connected; the subscriber gets the traceparent', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const subscriber = await app.createAccount('Traced webhooks');
    expect((await createWebhook(app, subscriber, { callback: { url: receiver.url }, topic: 'custom_event' })).status).toBe(201);

    const res = await postEvent(app, subscriber, { eventName: 'Traced', customer: { email: 'hook@example.com' } });
    expect(res.status).toBe(202);
    const [delivered] = await eventually(async () => (receiver.received.length ? receiver.received : undefined), 'the delivery');
    const accepted = await eventually(async () => spans().find((s) => s.kind === SpanKind.SERVER && s.name === 'POST /v2.2/stores/:storeId/events' && s.attributes['url.path']?.toString().includes(subscriber.storeId)), 'the request span');
    const traceId = accepted.spanContext().traceId;

    // The delivery is part of the request's trace, and the subscriber was told so.
    const delivery = await ended(traceId, 'webhook delivery');
    expect(delivery.attributes).toMatchObject({ 'webhook.event.type': 'created', 'webhook.outcome': 'succeeded', 'http.response.status_code': 204 });
    expect(ancestry(delivery).at(-1)).toBe(accepted.name);
    const sent = parseTraceparent(delivered!.headers.traceparent);
    expect(sent?.traceId).toBe(traceId);
    expect(ancestry(spans().find((s) => s.spanContext().spanId === sent!.spanId)!)).toContain('webhook delivery');

    // The batch spans between (processing, the fan-out) start traces of their own, linked to the request's.
    const processing = spans().find((s) => s.name === 'custom-events process' && linksTo(s, traceId));
    expect(processing?.kind).toBe(SpanKind.CONSUMER);
    expect(processing?.parentSpanContext).toBeUndefined();
    expect(spansOf(processing!.spanContext().traceId).filter(isSql).length).toBeGreaterThan(0);
    expect(spans().find((s) => s.name === 'webhooks-outbox process' && linksTo(s, traceId))).toBeDefined();
  });

  it('a flow run started by an event continues its trace, up to the webhook step sent', async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    const owner = await app.createAccount('Traced flows');
    const flow = await createFlow(app, owner, { name: 'Hook', trigger: { eventName: 'Flowed' }, steps: [{ webhook: { url: receiver.url } }] });
    expect((await postEvent(app, owner, { eventName: 'Flowed', customer: { email: 'flow@example.com' } })).status).toBe(202);
    const [sent] = await eventually(async () => (receiver.received.length ? receiver.received : undefined), 'the webhook step');
    const traceId = parseTraceparent(sent!.headers.traceparent)?.traceId;
    const accepted = spansOf(traceId!).find((s) => s.kind === SpanKind.SERVER);
    expect(accepted?.name).toBe('POST /v2.2/stores/:storeId/events');
    const step = await ended(traceId!, 'flow run advance');
    expect(step.attributes['flow.id']).toBe(flow.id);
    expect(ancestry(step).at(-1)).toBe(accepted!.name);
    expect(spans().find((s) => s.name === 'flow-triggers process' && linksTo(s, traceId!))).toBeDefined();
    // The step's batch span ends once its transaction commits, after the receiver already has the request.
    await eventually(async () => spans().find((s) => s.name === 'flow-steps process' && linksTo(s, traceId!)), 'the flow-steps batch span linked to the trace');
    await eventually(async () => (await runsOf(app, owner, flow.id)).find((r) => r.status === 'COMPLETED'), 'the run to complete');
  });
});

function isSql(span: ReadableSpan): boolean {
  return span.kind === SpanKind.CLIENT && span.name.startsWith('pg.query');
}

function isBelow(span: ReadableSpan, ancestor: ReadableSpan, among: readonly ReadableSpan[]): boolean {
  for (let p = parentOf(span, among); p; p = parentOf(p, among)) if (p === ancestor) return true;
  return false;
}
