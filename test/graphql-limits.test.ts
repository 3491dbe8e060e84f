import { describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { query } from './support/database.js';

describe('GraphQL limits and hygiene', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Acme');

  it('refuses an operation over the cost limit before executing it', async () => {
    // 500 returns x (edges + node + fields + order + its fields) is well over 5,000.
    const res = await app.graphql(`{ returns(storeId: "${acme.storeId}", first: 500) { edges { node { id status type createdAt order { id name currency externalId } } } } }`);
    expect(res.status).toBe(400);
    expect(res.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
    expect(res.data).toBeUndefined();
  });

  it('counts a connection without `first` as 20 items', async () => {
    // 20 x (1 + 1 + 1) + 3 = fine; but 20 x 20 nested would not be.
    const ok = await app.graphql(`{ returns(storeId: "${acme.storeId}") { edges { node { id } } } }`);
    expect(ok.errors).toBeUndefined();
  });

  it('refuses an operation deeper than 10 levels, fragments included', async () => {
    // return(1) order(2) returns(3) edges(4) node(5) order(6) returns(7) edges(8) node(9) order(10) id(11)
    const deep = `{ return(id: "x") { order { returns { edges { node { order { returns { edges { node { order { id } } } } } } } } } } }`;
    const refused = await app.graphql(deep);
    expect(refused.status).toBe(400);
    expect(refused.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
    const viaFragments = `
      query { return(id: "x") { order { returns { ...A } } } }
      fragment A on ReturnConnection { edges { node { order { returns { edges { node { ...B } } } } } } }
      fragment B on Return { order { id } }`;
    expect((await app.graphql(viaFragments)).errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
    const shallow = `{ return(id: "x") { order { returns { edges { node { order { returns { edges { node { id } } } } } } } } } }`;
    const allowed = await app.graphql(shallow);
    expect(allowed.errors).toBeUndefined();
    expect(allowed.data).toEqual({ return: null });
  });

  it('counts a variable\'s default value as `first`, like a value sent', async () => {
    const refused = await app.graphql(`query($n: Int = 500) { returns(storeId: "${acme.storeId}", first: $n) { edges { node { id status type createdAt order { id name currency externalId } } } } }`);
    expect(refused.status).toBe(400);
    expect(refused.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
  });

  it('answers an invalid document with its validation error and no stack trace', async () => {
    const res = await app.graphql('{ nope }');
    expect(res.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(JSON.stringify(res)).not.toContain('stacktrace');
  });

  it('allows introspection outside production', async () => {
    const res = await app.graphql<{ __schema: { queryType: { name: string } } }>('{ __schema { queryType { name } } }');
    expect(res.data?.__schema.queryType.name).toBe('Query');
  });
});

describe('GraphQL in production', () => {
  const logs: Record<string, unknown>[] = [];
  const app = useTestApp({ NODE_ENV: 'production', LOG_LEVEL: 'error' }, { logs });

  it('turns introspection off', async () => {
    const res = await app.graphql('{ __schema { queryType { name } } }');
    expect(res.errors?.[0]?.message).toMatch(/introspection/i);
  });

  it('masks a real unexpected failure in a resolver: nothing internal in GraphQL or REST bodies, the request id in the log', async () => {
    const acme = await app.createAccount('Broken');
    // A resolver failing for a reason no client caused: its table is gone.
    await query(app.databaseUrl, 'alter table events.customer rename to customer_gone');
    try {
      const res = await app.request('/graphql', {
        method: 'POST',
        token: acme.apiSecret,
        headers: { 'content-type': 'application/json', 'x-request-id': 'req-masking-1' },
        body: JSON.stringify({ query: `{ customer(storeId: "${acme.storeId}", email: "a@example.com") { id } }` }),
      });
      const body = (await res.json()) as { errors: { message: string; extensions: Record<string, unknown> }[] };
      expect(body.errors[0]).toMatchObject({ message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } });
      const text = JSON.stringify(body);
      for (const leak of ['customer_gone', 'relation', 'does not exist', 'stack', 'at ', '.ts', '.js', 'pg']) expect(text).not.toContain(leak);
      expect(logs.some((line) => line.requestId === 'req-masking-1' && JSON.stringify(line).includes('customer'))).toBe(true);

      const rest = await app.request(`/v2.2/stores/${acme.storeId}/events`, {
        method: 'POST',
        token: acme.apiSecret,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ eventName: 'E', customer: { email: 'a@example.com' } }),
      });
      // Acceptance does not touch the customer table: the failure is in the read below.
      expect(rest.status).toBe(202);
      const read = await app.request(`/graphql`, {
        method: 'POST',
        token: acme.apiSecret,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: `{ customers(storeId: "${acme.storeId}") { edges { node { id } } } }` }),
      });
      expect(JSON.stringify(await read.json())).not.toContain('customer_gone');
    } finally {
      await query(app.databaseUrl, 'alter table events.customer_gone rename to customer');
    }
  });
});
