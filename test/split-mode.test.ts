import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../platform/config.js';
import { createLogger } from '../platform/observability/logger.js';
import { startService, type RunningService } from '../server/main.js';
import { TEST_ADMIN_TOKEN, testEnv } from './support/app.js';
import { createTestDatabase, query } from './support/database.js';
import { freePort } from './support/processes.js';
import { orderBody, returnBody } from './support/returns.js';
import { startReceiver } from './support/receiver.js';
import { eventually } from './support/eventually.js';

/**
 * The deployment that outgrows one machine: each subgraph, the gateway (with
 * the facade) and the workers as separate services on one database, the
 * gateway reaching the subgraphs over HTTP through the checked-in supergraph.
 */
describe('split mode', () => {
  const services: RunningService[] = [];
  let gatewayUrl: string;
  let databaseUrl: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    const env = {
      ...testEnv(databaseUrl),
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      DB_POOL_SIZE: '3',
      PORT: String(await freePort()),
      RETURNS_SUBGRAPH_PORT: String(await freePort()),
      INVENTORY_SUBGRAPH_PORT: String(await freePort()),
      EVENTS_SUBGRAPH_PORT: String(await freePort()),
    };
    const config = loadConfig(env);
    const logger = createLogger('silent');
    // Started together, as an orchestrator would: migrations serialise on advisory locks.
    services.push(...(await Promise.all((['returns', 'inventory', 'events'] as const).map((name) => startService(config, logger, 'subgraph', name)))));
    services.push(await startService(config, logger, 'worker'));
    const gateway = await startService(config, logger, 'gateway');
    services.push(gateway);
    gatewayUrl = `http://127.0.0.1:${gateway.port}`;
  });

  afterAll(async () => {
    for (const service of services.reverse()) await service.stop();
  });

  const gql = async (q: string, token = TEST_ADMIN_TOKEN) => {
    const res = await fetch(`${gatewayUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: q }),
    });
    return (await res.json()) as { data?: Record<string, never>; errors?: unknown[] };
  };

  it('serves each subgraph on its own port', async () => {
    for (const service of services.filter((s) => s.port && s !== services[services.length - 1])) {
      const res = await fetch(`http://127.0.0.1:${service.port}/readyz`);
      expect(res.status).toBe(200);
    }
  });

  it("answers a query across subgraphs (a customer's returns) through the gateway over HTTP", async () => {
    const created = await gql('mutation { createAccount(input: {name: "Split"}) { accountId storeId apiSecret } }');
    const { storeId, apiSecret } = created.data!.createAccount as { storeId: string; apiSecret: string };
    await query(databaseUrl, `insert into events.customer (id, store_id, email) values ('cus_1', $1, 'ada@example.com')`, [storeId]);
    const rest = (path: string, body?: unknown) =>
      fetch(`${gatewayUrl}/v2.2${path}`, {
        method: body ? 'POST' : 'GET',
        headers: { authorization: `Bearer ${apiSecret}`, 'content-type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      });
    const order = orderBody({ id: '1001', name: '#1001', customer: { email: 'Ada@Example.com' } });
    expect((await rest(`/stores/${storeId}/custom/orders`, order)).status).toBe(200);
    const createdReturn = await rest(`/stores/${storeId}/returns`, returnBody('1001', [{ lineItemId: 'li-1', quantity: 1, reason: 'too small' }]));
    expect(createdReturn.status).toBe(201);
    const returnId = (await createdReturn.json()).return.id;

    // The API secret travels from the gateway to each subgraph, which checks it again.
    const result = await gql(`{ customer(storeId: "${storeId}", email: "ada@example.com") { id email returns { edges { node { id status order { name } } } } } }`, apiSecret);
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      customer: { id: 'cus_1', email: 'ada@example.com', returns: { edges: [{ node: { id: returnId, status: 'open', order: { name: '#1001' } } }] } },
    });

    const list = await rest(`/stores/${storeId}/returns`);
    expect(list.status).toBe(200);
    expect((await list.json()).returns.map((r: { id: string }) => r.id)).toEqual([returnId]);
  });

  it('carries a REST body of several megabytes from the gateway to the subgraph (an event under the 5 MB limit)', async () => {
    const { storeId, apiSecret } = (await gql('mutation { createAccount(input: {name: "Big"}) { storeId apiSecret } }')).data!.createAccount as { storeId: string; apiSecret: string };
    const extra = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`part${i}`, 'x'.repeat(90_000)]));
    const res = await fetch(`${gatewayUrl}/v2.2/stores/${storeId}/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiSecret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ eventName: 'Uploaded', customer: { email: 'big@example.com' }, data: { $extra: extra } }),
    });
    expect(res.status).toBe(202);
  });

  it('serves the compatibility API through the gateway: the key reaches the subgraph, the worker process completes a processed return', async () => {
    const { storeId, apiSecret, compatKey } = (await gql('mutation { createAccount(input: {name: "Compat"}) { storeId apiSecret compatKey } }')).data!.createAccount as {
      storeId: string;
      apiSecret: string;
      compatKey: string;
    };
    const post = (path: string, body: unknown) =>
      fetch(`${gatewayUrl}/v2.2${path}`, { method: 'POST', headers: { authorization: `Bearer ${apiSecret}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post(`/stores/${storeId}/custom/orders`, orderBody({ id: 'c-1' }))).status).toBe(200);
    const returnId = (await (await post(`/stores/${storeId}/returns`, returnBody('c-1', [{ lineItemId: 'li-1', quantity: 1, reason: 'x' }]))).json()).return.id as string;
    const loop = (method: string, path: string) => fetch(`${gatewayUrl}/api/v1/warehouse${path}`, { method, headers: { 'x-authorization': compatKey } });
    const listed = (await (await loop('GET', '/return/list')).json()) as { id: number; service_id: string }[];
    expect(listed.map((r) => r.service_id)).toEqual([returnId]);
    expect(await (await loop('POST', `/return/${listed[0]!.id}/process`)).json()).toBe(true);
    const state = await eventually(async () => {
      const { state } = (await (await loop('GET', `/return/details?return_id=${listed[0]!.id}`)).json()) as { state: string };
      return state === 'closed' ? state : undefined;
    }, 'the worker process to close the return', { intervalMs: 100 });
    expect(state).toBe('closed');
  });

  it('webhooks in split mode: subscribed through the gateway, delivered by the worker process, read through the gateway (its in-process platform subgraph)', async () => {
    const receiver = await startReceiver();
    try {
      const { storeId, apiSecret } = (await gql('mutation { createAccount(input: {name: "Hooks"}) { storeId apiSecret } }')).data!.createAccount as { storeId: string; apiSecret: string };
      const post = (path: string, body: unknown) =>
        fetch(`${gatewayUrl}/v2.2${path}`, { method: 'POST', headers: { authorization: `Bearer ${apiSecret}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const hook = await post(`/stores/${storeId}/webhooks`, { webhook: { callback: { url: receiver.url, auth: null }, topic: 'return' } });
      expect(hook.status).toBe(201);
      const webhookId = (await hook.json()).webhook.id as string;
      expect((await post(`/stores/${storeId}/custom/orders`, orderBody({ id: 'w-1' }))).status).toBe(200);
      const returnId = (await (await post(`/stores/${storeId}/returns`, returnBody('w-1', [{ lineItemId: 'li-1', quantity: 1, reason: 'x' }]))).json()).return.id as string;
      await eventually(async () => (receiver.received.length ? true : undefined), 'the delivery');
      expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({ type: 'created', return: { id: returnId } });
      // The attempt is logged `pending` until its outcome is recorded, just after the receiver answered.
      const read = await eventually(async () => {
        const r = await gql(`{ webhook(id: "${webhookId}") { id deliveries(first: 5) { edges { node { status } } } } }`, apiSecret);
        return JSON.stringify(r.data).includes('succeeded') ? r : undefined;
      }, 'the success in the log');
      expect(read.errors).toBeUndefined();
      expect(read.data).toEqual({ webhook: { id: webhookId, deliveries: { edges: [{ node: { status: 'succeeded' } }] } } });
    } finally {
      await receiver.close();
    }
  });

  it('runs a flow: created through the gateway, triggered by an event the facade accepts, executed by the worker process', async () => {
    const { storeId, apiSecret } = (await gql('mutation { createAccount(input: {name: "Flows"}) { storeId apiSecret } }')).data!.createAccount as { storeId: string; apiSecret: string };
    const template = (await gql(`mutation { createTemplate(storeId: "${storeId}", input: {name: "t", channel: EMAIL, subject: "Hi {{ customer.firstName }}", body: "Total {{ event.data.total }}"}) { id } }`, apiSecret)).data!
      .createTemplate as { id: string };
    const flow = (
      await gql(
        `mutation { createFlow(storeId: "${storeId}", input: {name: "f", trigger: {eventName: "Split Order"}, steps: [{wait: {seconds: 1}}, {sendEmail: {templateId: "${template.id}", kind: transactional}}]}) { id } }`,
        apiSecret,
      )
    ).data!.createFlow as { id: string };
    const res = await fetch(`${gatewayUrl}/v2.2/stores/${storeId}/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiSecret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ eventName: 'Split Order', customer: { email: 'split@example.com', firstName: 'Sam' }, data: { total: 12 } }),
    });
    expect(res.status).toBe(202);
    await eventually(async () => {
      const runs = (await gql(`{ flowRuns(flowId: "${flow.id}") { edges { node { status } } } }`, apiSecret)).data!.flowRuns as { edges: { node: { status: string } }[] };
      return runs.edges[0]?.node.status === 'COMPLETED';
    }, 'the flow run to complete', { timeoutMs: 15_000 });
    const messages = (await gql(`{ messages(storeId: "${storeId}") { edges { node { to subject body status } } } }`, apiSecret)).data!.messages as { edges: { node: unknown }[] };
    expect(messages.edges.map((e) => e.node)).toEqual([{ to: 'split@example.com', subject: 'Hi Sam', body: 'Total 12', status: 'RECORDED' }]);
  });

  it("does not let one account's secret reach another's data through entity references", async () => {
    const a = (await gql('mutation { createAccount(input: {name: "A"}) { storeId apiSecret } }')).data!.createAccount as { storeId: string; apiSecret: string };
    const b = (await gql('mutation { createAccount(input: {name: "B"}) { storeId apiSecret } }')).data!.createAccount as { storeId: string; apiSecret: string };
    const post = (path: string, body: unknown) =>
      fetch(`${gatewayUrl}/v2.2${path}`, { method: 'POST', headers: { authorization: `Bearer ${b.apiSecret}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post(`/stores/${b.storeId}/custom/orders`, orderBody({ id: 'b' }))).status).toBe(200);
    const retB = (await (await post(`/stores/${b.storeId}/returns`, returnBody('b', [{ lineItemId: 'li-2', quantity: 1, reason: 'x' }]))).json()).return.id;
    const res = await gql(`{ return(id: "${retB}") { id } }`, a.apiSecret);
    expect(res.data).toEqual({ return: null });
    // Straight at the subgraph, forging an entity representation, is refused the same way.
    const subgraph = services.find((s) => s.runtime.schemas.returns)!;
    const direct = await fetch(`http://127.0.0.1:${subgraph.port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${a.apiSecret}` },
      body: JSON.stringify({ query: `{ _entities(representations: [{__typename: "Return", id: "${retB}"}]) { ... on Return { id } } }` }),
    });
    expect((await direct.json()).data).toEqual({ _entities: [null] });
  });
});
