import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestAccount, type TestApp } from './support/app.js';

describe('GraphQL limits and hygiene', () => {
  let app: TestApp;
  let acme: TestAccount;
  beforeAll(async () => {
    app = await startTestApp();
    acme = await app.createAccount('Acme');
  });
  afterAll(async () => {
    await app?.stop();
  });

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

  it('masks unexpected errors and never sends stack traces', async () => {
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
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ NODE_ENV: 'production' });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('turns introspection off', async () => {
    const res = await app.graphql('{ __schema { queryType { name } } }');
    expect(res.errors?.[0]?.message).toMatch(/introspection/i);
  });
});
