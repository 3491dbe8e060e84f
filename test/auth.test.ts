import { describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { eventually } from './support/eventually.js';

describe('REST authentication and authorization', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Acme');
  const globex = useTestAccount(app, 'Globex');

  const list = (storeId: string, token?: string) => app.request(`/v2.2/stores/${storeId}/returns`, { token });

  it('answers 401 with WWW-Authenticate and a problem body when the secret is missing', async () => {
    const res = await list(acme.storeId);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = await res.json();
    expect(body).toMatchObject({ type: '/problems/unauthorized', status: 401, title: expect.any(String), detail: expect.any(String) });
    expect(body.instance).toBe(`/v2.2/stores/${acme.storeId}/returns#${res.headers.get('x-request-id')}`);
  });

  it('answers 401 for an unknown secret and for a non-bearer scheme', async () => {
    expect((await list(acme.storeId, 'sk_not-a-real-secret')).status).toBe(401);
    const basic = await app.request(`/v2.2/stores/${acme.storeId}/returns`, { headers: { authorization: `Basic ${acme.apiSecret}` } });
    expect(basic.status).toBe(401);
  });

  it("answers 404 store-not-found for another account's store, exactly as for a store that does not exist", async () => {
    const foreign = await list(globex.storeId, acme.apiSecret);
    const missing = await list('sto_00000000000000000000000000', acme.apiSecret);
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    const [a, b] = [await foreign.json(), await missing.json()];
    expect(a.type).toBe('/problems/store-not-found');
    expect(b.type).toBe('/problems/store-not-found');
  });

  it('answers 403 scope-forbidden naming the scope the secret lacks', async () => {
    const limited = await app.service.runtime.accounts.createSecret(acme.accountId, ['inventory_read']);
    const res = await list(acme.storeId, limited.apiSecret);
    expect(res.status).toBe(403);
    const body = await res.json();
    expect(body.type).toBe('/problems/scope-forbidden');
    expect(body.detail).toContain('returns_read');
  });

  it('keeps several secrets active at once and revokes one at once', async () => {
    const second = await app.service.runtime.accounts.createSecret(acme.accountId);
    expect((await list(acme.storeId, acme.apiSecret)).status).toBe(200);
    expect((await list(acme.storeId, second.apiSecret)).status).toBe(200);
    await app.service.runtime.accounts.revokeSecret(acme.accountId, second.prefix);
    expect((await list(acme.storeId, second.apiSecret)).status).toBe(401);
    expect((await list(acme.storeId, acme.apiSecret)).status).toBe(200);
  });

  it('stores secrets only as hashes', async () => {
    const { query } = await import('./support/database.js');
    const rows = await query<{ hash: string; prefix: string }>(app.databaseUrl, 'select hash, prefix from platform.api_secret');
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.hash).not.toContain(acme.apiSecret);
      expect(row.prefix).toHaveLength(12);
    }
    const keys = await query<{ hash: string }>(app.databaseUrl, 'select hash from platform.compat_key');
    expect(keys.every((k) => k.hash !== acme.compatKey)).toBe(true);
  });

  it('lets the admin token read any store, and answers 404 for a store that does not exist', async () => {
    expect((await list(globex.storeId, app.adminToken)).status).toBe(200);
    const missing = await list('sto_01NOSUCHSTORE0000000000000', app.adminToken);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ type: '/problems/store-not-found', status: 404 });
  });
});

describe('GraphQL authentication', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Acme');

  it('answers HTTP 401 without valid credentials', async () => {
    const res = await app.request('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const bad = await app.graphql('{ __typename }', {}, 'sk_wrong');
    expect(bad.status).toBe(401);
  });

  it('accepts an API secret, for its own stores only', async () => {
    const own = await app.graphql<{ locations: unknown[] }>(`{ locations(storeId: "${acme.storeId}") { id } }`, {}, acme.apiSecret);
    expect(own.data).toEqual({ locations: [] });
    const other = await app.createAccount('Other');
    const foreign = await app.graphql(`{ locations(storeId: "${other.storeId}") { id } }`, {}, acme.apiSecret);
    expect(foreign.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND', problem: 'store-not-found' });
  });

  it('lets only the admin token create accounts', async () => {
    const denied = await app.graphql('mutation { createAccount(input: {name: "X"}) { accountId } }', {}, acme.apiSecret);
    expect(denied.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const created = await app.graphql<{ createAccount: Record<string, string> }>(
      'mutation { createAccount(input: {name: "New", storeName: "New store"}) { accountId storeId apiSecret compatKey } }',
    );
    expect(created.data?.createAccount).toMatchObject({
      accountId: expect.stringMatching(/^acc_/),
      storeId: expect.stringMatching(/^sto_/),
      apiSecret: expect.stringMatching(/^sk_/),
      compatKey: expect.stringMatching(/^ck_/),
    });
    const secret = created.data!.createAccount.apiSecret!;
    const res = await app.request(`/v2.2/stores/${created.data!.createAccount.storeId}/returns`, { token: secret });
    expect(res.status).toBe(200);
  });

  it('validates createAccount input', async () => {
    const res = await app.graphql('mutation { createAccount(input: {name: "  "}) { accountId } }');
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
  });
});

describe('cached credentials stay exact', () => {
  const app = useTestApp();

  /** The platform as another process (the admin CLI, another replica) sees it: its own pool, no cache. */
  async function otherProcess() {
    const { createOrm } = await import('../platform/db/orm.js');
    const { platformDbModule } = await import('../platform/schema.js');
    const { AccountsService } = await import('../platform/accounts/accounts.service.js');
    const { createLogger } = await import('../platform/observability/logger.js');
    const orm = await createOrm(app.databaseUrl, platformDbModule, 1, createLogger('silent'));
    return { accounts: new AccountsService(orm), close: () => orm.close() };
  }

  it('sees a store another process added to the account, and a revocation made there', async () => {
    const acme = await app.createAccount('Acme');
    const list = (storeId: string) => app.request(`/v2.2/stores/${storeId}/returns`, { token: acme.apiSecret });
    expect((await list(acme.storeId)).status).toBe(200); // the principal is cached now
    const other = await otherProcess();
    try {
      const { storeId } = await other.accounts.createStore(acme.accountId, 'Second store');
      await eventually(async () => (await list(storeId)).status === 200, 'the new store to be visible', { timeoutMs: 2000 });
      await other.accounts.revokeSecret(acme.accountId, acme.apiSecret.slice(0, 12));
      await eventually(async () => (await list(acme.storeId)).status === 401, 'the revoked secret to stop working', { timeoutMs: 2000 });
    } finally {
      await other.close();
    }
  });

  it('never lets a compatibility key pass as an API secret, even once cached', async () => {
    const acme = await app.createAccount('Keys');
    const asCompat = await app.service.runtime.accounts.authenticate({ compatKey: acme.compatKey }, app.adminToken);
    expect(asCompat?.kind).toBe('compat');
    const res = await app.request(`/v2.2/stores/${acme.storeId}/returns`, { token: acme.compatKey });
    expect(res.status).toBe(401);
  });
});
