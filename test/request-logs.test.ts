import { describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';

/** One access log line per request: the path as sent (mount prefix included), the route template, the GraphQL operation. */
describe('request logs', () => {
  const logs: Record<string, unknown>[] = [];
  const app = useTestApp({ LOG_LEVEL: 'info' }, { logs });
  const account = useTestAccount(app, 'Logs');

  const requestLine = (requestId: string) => logs.find((l) => l.msg === 'request' && l.requestId === requestId);

  it('logs a REST call with its full path and its route template, without the query', async () => {
    const res = await app.request(`/v2.2/stores/${account.storeId}/returns?page-size=5`, { token: account.apiSecret });
    expect(res.status).toBe(200);
    const line = requestLine(res.headers.get('x-request-id')!);
    expect(line).toMatchObject({ method: 'GET', path: `/v2.2/stores/${account.storeId}/returns`, route: '/v2.2/stores/:storeId/returns', status: 200 });
  });

  it('names the query parameters a route ignored (decisions 17)', async () => {
    const res = await app.request(`/v2.2/stores/${account.storeId}/returns?limit=10&statuz=open`, { token: account.apiSecret });
    expect(res.status).toBe(200);
    expect(requestLine(res.headers.get('x-request-id')!)).toMatchObject({ status: 200, ignoredParameters: ['limit', 'statuz'] });
  });

  it('logs a GraphQL call with the operation name, given or read from the document', async () => {
    const named = await fetch(`${app.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${app.adminToken}` },
      body: JSON.stringify({ query: 'query ListAccounts { accounts { accountId } }' }),
    });
    expect(requestLine(named.headers.get('x-request-id')!)).toMatchObject({ path: '/graphql', route: '/graphql', operation: 'ListAccounts' });
    const chosen = await fetch(`${app.baseUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${app.adminToken}` },
      body: JSON.stringify({ query: 'query A { accounts { accountId } } query B { accounts { name } }', operationName: 'B' }),
    });
    expect(requestLine(chosen.headers.get('x-request-id')!)).toMatchObject({ operation: 'B' });
  });
});
