import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clientTypes, TYPES } from '../clients/typescript/generate.js';
import { useTestAccount, useTestApp } from './support/app.js';
import { run } from './support/processes.js';
import { seedReturns } from './support/returns.js';

describe('the typed TypeScript client (clients/typescript)', () => {
  const app = useTestApp();
  const account = useTestAccount(app);

  it('has types generated from the committed OpenAPI document (run `npm run openapi` when stale)', async () => {
    expect(readFileSync(TYPES, 'utf8'), 'clients/typescript/api.ts is stale').toBe(await clientTypes());
  });

  it('runs the example against the service: an order, a return, and the returns page by page', async () => {
    const { returnIds } = await seedReturns(app, account, 2);
    const result = await run(process.execPath, ['clients/typescript/example.ts'], { BASE_URL: app.baseUrl, API_SECRET: account.apiSecret, STORE_ID: account.storeId });
    expect(result.code, result.stderr).toBe(0);
    const out = result.stdout;
    expect(out).toMatch(/^order ord_\S+ \(#\S+\): total 69\.00 USD$/m);
    const created = out.match(/^return (ret_\S+): open, refund 26\.00 USD$/m);
    expect(created, out).not.toBeNull();
    expect(out).toContain('3 returns in 2 pages');
    // The pages list every return of the store once.
    const listed = out.split('\n').filter((line) => line.startsWith('page ')).join(' ');
    for (const id of [created![1]!, ...returnIds]) expect(listed.split(id).length - 1, id).toBe(1);
  });
});
