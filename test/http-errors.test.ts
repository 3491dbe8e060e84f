import { PROBLEMS, problemExplanation, problemTitle, type ProblemSlug } from '../platform/problems.js';
import { describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { query } from './support/database.js';

describe('HTTP error behaviour', () => {
  const logs: Record<string, unknown>[] = [];
  const app = useTestApp({ LOG_LEVEL: 'error' }, { logs });
  const acme = useTestAccount(app, 'Acme');

  it('answers an unknown route with a 404 problem', async () => {
    for (const path of ['/v2.2/nope', '/nothing-here', '/v2.2/stores/x/returns/y/z']) {
      const res = await app.request(path, { token: acme.apiSecret });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await res.json()).toMatchObject({ type: '/problems/route-not-found', status: 404 });
    }
  });

  it('answers a known path with another method with 405 and Allow', async () => {
    const res = await app.request(`/v2.2/stores/${acme.storeId}/returns`, { method: 'PATCH', token: acme.apiSecret });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('GET');
    expect(await res.json()).toMatchObject({ type: '/problems/method-not-allowed', status: 405 });
  });

  it('answers CORS preflight with 204 and the allowed methods and headers', async () => {
    const res = await app.request(`/v2.2/stores/${acme.storeId}/returns`, { method: 'OPTIONS', headers: { origin: 'https://dash.example', 'access-control-request-method': 'GET' } });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toContain('GET');
    expect(res.headers.get('access-control-allow-headers')).toContain('Idempotency-Key');
    const get = await app.request(`/v2.2/stores/${acme.storeId}/returns`, { token: acme.apiSecret });
    expect(get.headers.get('access-control-expose-headers')).toContain('X-Page-Next');
  });

  it('problem-pages: serves the explanation of every problem type the service can emit (order-line-has-returns was a 404)', async () => {
    // AppError takes only slugs of this catalogue, so these are all the types there are.
    for (const slug of Object.keys(PROBLEMS) as ProblemSlug[]) {
      const res = await app.request(`/problems/${slug}`);
      expect(res.status, slug).toBe(200);
      const text = await res.text();
      expect(text, slug).toContain(problemTitle(slug));
      expect(text, slug).toContain(problemExplanation(slug));
      expect(text, slug).not.toContain('docs/');
    }
    expect((await app.request('/problems/no-such-problem')).status).toBe(404);
  });

  it('answers an unexpected failure with a 500 that reveals no internals', async () => {
    // Break the storage under the running service: the list query now fails inside PostgreSQL.
    await query(app.databaseUrl, 'alter table returns.return rename to return_gone');
    try {
      const res = await app.request(`/v2.2/stores/${acme.storeId}/returns`, { token: acme.apiSecret });
      expect(res.status).toBe(500);
      const text = await res.text();
      const body = JSON.parse(text);
      expect(body).toMatchObject({ type: '/problems/internal-error', status: 500, detail: 'Internal server error' });
      expect(body.instance).toContain(res.headers.get('x-request-id'));
      expect(text).not.toMatch(/relation|return_gone|select|stack|at /i);
      // What the body hides is in the log, under the request's id.
      const logged = logs.find((l) => l.msg === 'operation failed' && l.requestId === res.headers.get('x-request-id'));
      expect(JSON.stringify(logged?.err)).toMatch(/return_gone|relation/);
    } finally {
      await query(app.databaseUrl, 'alter table returns.return_gone rename to return');
    }
  });
});

describe('per-secret rate limit on /v2.2', () => {
  const app = useTestApp({ API_RATE_LIMIT_PER_MINUTE: '5' });

  it('answers 429 with Retry-After and RateLimit headers once a secret is over its limit', async () => {
    const acme = await app.createAccount('Acme');
    // The limiter counts in fixed windows of a minute: the six requests go inside one (on a loaded
    // machine they may take seconds), else the sixth would open a fresh window and be admitted.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 45_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 100));
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 6; i++) {
      last = await app.request(`/v2.2/stores/${acme.storeId}/returns`, { token: acme.apiSecret });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last!.headers.get('ratelimit-policy')).toBe('"per-secret";q=5;w=60');
    expect(last!.headers.get('ratelimit')).toMatch(/^"per-secret";r=0;t=\d+$/);
    expect((await last!.json()).type).toBe('/problems/rate-limited');
    // Another secret has its own budget.
    const other = await app.createAccount('Other');
    expect((await app.request(`/v2.2/stores/${other.storeId}/returns`, { token: other.apiSecret })).status).toBe(200);
  });
});
