import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../platform/config.js';
import { createLogger } from '../platform/logger.js';
import { startService, type RunningService } from '../server/main.js';
import { TEST_ADMIN_TOKEN } from './support/app.js';
import { createTestDatabase, query } from './support/database.js';
import { freePort } from './support/processes.js';

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
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      LOG_LEVEL: 'silent',
      DB_POOL_SIZE: '3',
      DEMO_ACCOUNT: 'false',
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
    await query(databaseUrl, `insert into returns."order" (id, store_id, provider, external_id, name, currency, customer_email) values ('ord_1', $1, 'custom', '1001', '#1001', 'USD', 'Ada@Example.com')`, [storeId]);
    await query(databaseUrl, `insert into returns.return (id, store_id, order_id, status) values ('ret_1', $1, 'ord_1', 'open')`, [storeId]);

    // The API secret travels from the gateway to each subgraph, which checks it again.
    const result = await gql(`{ customer(storeId: "${storeId}", email: "ada@example.com") { id email returns { edges { node { id status order { name } } } } } }`, apiSecret);
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      customer: { id: 'cus_1', email: 'ada@example.com', returns: { edges: [{ node: { id: 'ret_1', status: 'open', order: { name: '#1001' } } }] } },
    });

    const rest = await fetch(`${gatewayUrl}/v2.2/stores/${storeId}/returns`, { headers: { authorization: `Bearer ${apiSecret}` } });
    expect(rest.status).toBe(200);
    expect((await rest.json()).returns.map((r: { id: string }) => r.id)).toEqual(['ret_1']);
  });

  it("does not let one account's secret reach another's data through entity references", async () => {
    const a = (await gql('mutation { createAccount(input: {name: "A"}) { storeId apiSecret } }')).data!.createAccount as { storeId: string; apiSecret: string };
    const b = (await gql('mutation { createAccount(input: {name: "B"}) { storeId apiSecret } }')).data!.createAccount as { storeId: string; apiSecret: string };
    await query(databaseUrl, `insert into returns."order" (id, store_id, provider, external_id, name, currency) values ('ord_b', $1, 'custom', 'b', '#B', 'USD')`, [b.storeId]);
    await query(databaseUrl, `insert into returns.return (id, store_id, order_id, status) values ('ret_b', $1, 'ord_b', 'open')`, [b.storeId]);
    const res = await gql('{ return(id: "ret_b") { id } }', a.apiSecret);
    expect(res.data).toEqual({ return: null });
    // Straight at the subgraph, forging an entity representation, is refused the same way.
    const subgraph = services.find((s) => s.runtime.schemas.returns)!;
    const direct = await fetch(`http://127.0.0.1:${subgraph.port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${a.apiSecret}` },
      body: JSON.stringify({ query: '{ _entities(representations: [{__typename: "Return", id: "ret_b"}]) { ... on Return { id } } }' }),
    });
    expect((await direct.json()).data).toEqual({ _entities: [null] });
  });
});
