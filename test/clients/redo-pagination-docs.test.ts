import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from '../support/app.js';
import { seedBulk, seedEveryState, type StateReturn } from '../support/clients.js';

/**
 * Replay of the example client on the real platform's pagination page
 * (developers.redo.com/docs/api-reference/pagination, "Paginating All
 * Results"): `page-size=100` and `page-continue=<cursor>` as query parameters
 * set with URL.searchParams, `Authorization: Bearer`, `data.returns`
 * collected, the cursor read from `X-Page-Next` until it is absent.
 */

const app = useTestApp();
const account = useTestAccount(app, 'Docs example');

async function getAllReturns(storeId: string): Promise<{ returns: Record<string, unknown>[]; pages: number }> {
  const allReturns: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const url = new URL(`${app.baseUrl}/v2.2/stores/${storeId}/returns`);
    url.searchParams.set('page-size', '100');
    if (cursor) url.searchParams.set('page-continue', cursor);
    const response = await app.request(url.pathname + url.search, { headers: { Authorization: `Bearer ${account.apiSecret}` } });
    const data = (await response.json()) as { returns: Record<string, unknown>[] };
    allReturns.push(...data.returns);
    cursor = response.headers.get('X-Page-Next');
    pages++;
  } while (cursor);
  return { returns: allReturns, pages };
}

let made: StateReturn[];
let bulk: string[];
beforeAll(async () => {
  made = await seedEveryState(app, account);
  bulk = await seedBulk(app, account, 100);
});

describe('the pagination page example, unchanged', () => {
  it('collects every return of the store, in every status, over pages of 100', async () => {
    const { returns, pages } = await getAllReturns(account.storeId);
    expect(pages).toBe(2);
    expect(returns.map((r) => r.id).sort()).toEqual([...made.map((r) => r.id), ...bulk].sort());
    expect(new Set(returns.map((r) => r.status))).toEqual(new Set(made.map((r) => r.status)));
  });
});
