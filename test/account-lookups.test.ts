import { describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';

/** Lost ids found again: every account for the admin token, the caller's own stores for an API secret. */
describe('GraphQL accounts and stores', () => {
  const app = useTestApp();
  const a = useTestAccount(app, 'Lookup A');
  const b = useTestAccount(app, 'Lookup B');

  it('lists every account, oldest first, with its store count, for the admin token only', async () => {
    const { data } = await app.graphql<{ accounts: { accountId: string; name: string; storeCount: number }[] }>('{ accounts { accountId name storeCount createdAt } }');
    expect(data!.accounts.map((x) => x.accountId)).toEqual([a.accountId, b.accountId]);
    expect(data!.accounts[0]).toMatchObject({ name: 'Lookup A', storeCount: 1 });
    const refused = await app.graphql('{ accounts { accountId } }', {}, a.apiSecret);
    expect(refused.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(refused.data ?? null).toBeNull();
  });

  it("lists an API secret's own stores, and never another account's", async () => {
    const own = await app.graphql<{ stores: { storeId: string; accountId: string; name: string }[] }>('{ stores { storeId accountId name } }', {}, a.apiSecret);
    expect(own.data!.stores).toEqual([{ storeId: a.storeId, accountId: a.accountId, name: 'Lookup A store' }]);
    const foreign = await app.graphql('query($id: ID) { stores(accountId: $id) { storeId } }', { id: b.accountId }, a.apiSecret);
    expect(foreign.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(JSON.stringify(foreign)).not.toContain(b.storeId);
  });

  it("lists any account's stores for the admin token, which must name the account", async () => {
    const listed = await app.graphql<{ stores: { storeId: string }[] }>('query($id: ID) { stores(accountId: $id) { storeId } }', { id: b.accountId });
    expect(listed.data!.stores).toEqual([{ storeId: b.storeId }]);
    const unnamed = await app.graphql('{ stores { storeId } }');
    expect(unnamed.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', errors: [{ pointer: '/accountId' }] });
    const unknown = await app.graphql('{ stores(accountId: "acc_nope") { storeId } }');
    expect(unknown.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});
