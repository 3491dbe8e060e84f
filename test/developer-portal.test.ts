import { describe, expect, it } from 'vitest';
import { useTestApp } from './support/app.js';

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

/** Every URL a page would load from: scripts, styles, links; none may leave the service. */
function externalUrls(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((url) => /^(https?:)?\/\//.test(url));
}

describe('developer pages', () => {
  const app = useTestApp();

  it('GET / and GET /v2.2 answer an index with the reference, the documents and the explorer (HTML for browsers, JSON otherwise)', async () => {
    for (const path of ['/', '/v2.2']) {
      const page = await app.request(path, { headers: HTML });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await page.text();
      for (const link of ['/docs', '/v2.2/openapi.json', '/graphql', '/metrics']) expect(html).toContain(`href="${link}"`);
      const json = await app.request(path);
      expect(json.status).toBe(200);
      expect((await json.json()).links.map((l: { href: string }) => l.href)).toEqual(expect.arrayContaining(['/docs', '/v2.2/openapi.json', '/graphql']));
    }
  });

  it('serves the API reference with its assets from the installed packages, behind a policy that allows nothing external', async () => {
    const page = await app.request('/docs', { headers: HTML });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await page.text();
    expect(externalUrls(html)).toEqual([]);
    expect(html).toContain('/v2.2/openapi.json');
    const script = await app.request('/docs/assets/scalar.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect((await script.text()).length).toBeGreaterThan(100_000);
  });

  it('serves the GraphQL explorer to browsers at /graphql and leaves API calls to GraphQL', async () => {
    const page = await app.request('/graphql', { headers: HTML });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('GraphiQL');
    expect(externalUrls(html)).toEqual([]);
    for (const asset of [...html.matchAll(/(?:src|href)="(\/graphql\/assets\/[^"]+)"/g)].map((m) => m[1]!)) {
      expect((await app.request(asset)).status, asset).toBe(200);
    }
    // A client asking for JSON still reaches the GraphQL server (and still needs credentials).
    const api = await app.request('/graphql?query=%7B__typename%7D', { headers: { accept: 'application/json', 'apollo-require-preflight': 'true' } });
    expect(api.status).toBe(401);
    const withToken = await app.request('/graphql?query=%7B__typename%7D', { token: app.adminToken, headers: { accept: 'application/json', 'apollo-require-preflight': 'true' } });
    expect(await withToken.json()).toEqual({ data: { __typename: 'Query' } });
  });

  it('serves the dashboard and its scripts (Chart.js from its package, the page\'s own) behind the same policy, linked from the index', async () => {
    const page = await app.request('/dashboard', { headers: HTML });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await page.text();
    expect(externalUrls(html)).toEqual([]);
    const assets = [...html.matchAll(/src="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toEqual(['/dashboard/assets/chart.js', '/dashboard/assets/dashboard.js']);
    for (const asset of assets) {
      const script = await app.request(asset);
      expect(script.status, asset).toBe(200);
      expect(script.headers.get('content-type')).toMatch(/javascript/);
    }
    expect(await (await app.request('/', { headers: HTML })).text()).toContain('href="/dashboard"');
  });
});
