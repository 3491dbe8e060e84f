import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ADMIN_TOKEN, testEnv } from './support/app.js';
import { createTestDatabase, query } from './support/database.js';
import { eventually } from './support/eventually.js';
import { freePort, spawnNode, waitReady, type Spawned } from './support/processes.js';
import { startReceiver, type Receiver } from './support/receiver.js';

/** A span as OTLP/HTTP JSON carries it, with the service that sent it. */
interface ExportedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP's enum: 2 server, 3 client, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
}

interface OtlpAttribute {
  key: string;
  value: Record<string, unknown>;
}

const SERVER = 2;
const CLIENT = 3;

const attributes = (list: OtlpAttribute[] = []) => Object.fromEntries(list.map((a) => [a.key, Object.values(a.value)[0]]));

/** An OTLP/HTTP receiver (JSON encoding) that keeps every span the processes export. */
async function startCollector(): Promise<{ url: string; spans: ExportedSpan[]; server: Server }> {
  const spans: ExportedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: { resource: { attributes: OtlpAttribute[] }; scopeSpans: { spans: (Omit<ExportedSpan, 'service' | 'attributes'> & { attributes?: OtlpAttribute[] })[] }[] }[];
      };
      for (const { resource, scopeSpans } of body.resourceSpans) {
        const service = String(attributes(resource.attributes)['service.name']);
        for (const scope of scopeSpans) for (const s of scope.spans) spans.push({ ...s, service, attributes: attributes(s.attributes), links: s.links ?? [] });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, server };
}

/**
 * Split mode with tracing, as deployed: each subgraph, the gateway (with the
 * facade) and the workers in their own process, started the way the npm
 * scripts start them (`--import` of the telemetry register), exporting over
 * OTLP/HTTP to a collector this test runs. One trace crosses the processes:
 * the gateway's fetches carry `traceparent` to the subgraphs, and an event
 * accepted by the facade is delivered by the worker in the same trace.
 */
describe('tracing in split mode (one process per role, OTLP export)', () => {
  const processes: Spawned[] = [];
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let receiver: Receiver;
  let gatewayUrl: string;
  let databaseUrl: string;
  const spans = () => collector.spans;
  const parentOf = (span: ExportedSpan) => spans().find((s) => s.spanId === span.parentSpanId);

  beforeAll(async () => {
    collector = await startCollector();
    receiver = await startReceiver();
    databaseUrl = await createTestDatabase();
    const ports = { gateway: await freePort(), returns: await freePort(), inventory: await freePort(), events: await freePort() };
    const env = {
      ...testEnv(databaseUrl),
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      DB_POOL_SIZE: '3',
      PORT: String(ports.gateway),
      RETURNS_SUBGRAPH_PORT: String(ports.returns),
      INVENTORY_SUBGRAPH_PORT: String(ports.inventory),
      EVENTS_SUBGRAPH_PORT: String(ports.events),
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    const start = (role: string[], service: string) =>
      spawnNode(['--import', './dist/server/telemetry/telemetry-register.js', 'dist/server/main.js', ...role], { ...env, OTEL_SERVICE_NAME: service });
    for (const name of ['returns', 'inventory', 'events'] as const) processes.push(start(['subgraph', name], `rp-${name}`));
    processes.push(start(['worker'], 'rp-worker'));
    const gateway = start(['gateway'], 'rp-gateway');
    processes.push(gateway);
    gatewayUrl = `http://127.0.0.1:${ports.gateway}`;
    await waitReady(gatewayUrl, gateway);
    for (const [i, name] of (['returns', 'inventory', 'events'] as const).entries()) await waitReady(`http://127.0.0.1:${ports[name]}`, processes[i]);
  });

  afterAll(async () => {
    for (const p of processes.reverse()) {
      if (p.child.exitCode === null) p.child.kill('SIGTERM');
      await p.exited;
    }
    await receiver?.close();
    collector?.server.close();
  });

  const post = (path: string, token: string, body: unknown) =>
    fetch(`${gatewayUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  let account: { storeId: string; apiSecret: string };

  it('a query across two subgraphs is one trace: the gateway, its fetches, each subgraph process and its SQL', async () => {
    const created = await post('/graphql', TEST_ADMIN_TOKEN, { query: 'mutation { createAccount(input: {name: "Traced split"}) { storeId apiSecret } }' });
    account = ((await created.json()) as { data: { createAccount: typeof account } }).data.createAccount;
    await query(databaseUrl, `insert into events.customer (id, store_id, email) values ('cus_split', $1, 'split@example.com')`, [account.storeId]);
    const res = await post('/graphql', account.apiSecret, { query: `query SplitCustomer { customer(storeId: "${account.storeId}", email: "split@example.com") { id returns { edges { node { id } } } } }` });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { errors?: unknown }).errors).toBeUndefined();

    const request = await eventually(async () => spans().find((s) => s.name === 'gateway.request' && s.attributes['graphql.operation.name'] === 'SplitCustomer'), 'the gateway request span');
    for (const subgraph of ['events', 'returns']) {
      // The subgraph process's server span hangs from the gateway's HTTP call, itself under its fetch.
      const served = await eventually(
        async () => spans().find((s) => s.service === `rp-${subgraph}` && s.kind === SERVER && s.traceId === request.traceId),
        `the ${subgraph} subgraph's span in the gateway's trace`,
      );
      const call = parentOf(served);
      expect(call).toMatchObject({ service: 'rp-gateway', kind: CLIENT });
      expect(parentOf(call!)).toMatchObject({ name: 'gateway.fetch', attributes: { service: subgraph } });
      await eventually(async () => spans().some((s) => s.service === `rp-${subgraph}` && s.traceId === request.traceId && s.name.startsWith('pg.query')), `${subgraph}'s SQL in the trace`);
    }
  });

  it('an event accepted by the gateway is delivered by the worker process in the same trace; the subscriber gets its traceparent', async () => {
    const subscribed = await post(`/v2.2/stores/${account.storeId}/webhooks`, account.apiSecret, { webhook: { callback: { url: receiver.url }, topic: 'custom_event' } });
    expect(subscribed.status).toBe(201);
    const accepted = await post(`/v2.2/stores/${account.storeId}/events`, account.apiSecret, { eventName: 'Split', customer: { email: 'split@example.com' } });
    expect(accepted.status).toBe(202);
    const [delivered] = await eventually(async () => (receiver.received.length ? receiver.received : undefined), 'the delivery', { timeoutMs: 60_000 });
    const traceId = /^00-([0-9a-f]{32})-/.exec(String(delivered!.headers.traceparent))?.[1];
    const request = await eventually(async () => spans().find((s) => s.traceId === traceId && s.kind === SERVER), 'the accepting request span');
    expect(request).toMatchObject({ service: 'rp-gateway', name: 'POST /v2.2/stores/:storeId/events' });
    const delivery = await eventually(async () => spans().find((s) => s.traceId === traceId && s.name === 'webhook delivery'), 'the delivery span');
    expect(delivery.service).toBe('rp-worker');
    const processing = await eventually(async () => spans().find((s) => s.name === 'custom-events process' && s.links.some((l) => l.traceId === traceId)), 'the processing span');
    expect(processing.service).toBe('rp-worker');
  });
});
