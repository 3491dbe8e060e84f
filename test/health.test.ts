import { describe, expect, it } from 'vitest';
import { useTestApp } from './support/app.js';

describe('health endpoints', () => {
  const app = useTestApp();

  it('GET /healthz answers 200 while the process is up', async () => {
    const res = await app.request('/healthz');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 when the database and the queue are reachable and every pool gives out a connection', async () => {
    const res = await app.request('/readyz');
    expect(res.status).toBe(200);
    const pools = { platform: true, returns: true, inventory: true, events: true, webhooks: true };
    expect(await res.json()).toEqual({ status: 'ready', checks: { database: true, queue: true, pools } });
  });

  it('every response carries X-Request-Id, echoing the caller’s', async () => {
    const own = await app.request('/healthz', { headers: { 'x-request-id': 'abc-123' } });
    expect(own.headers.get('x-request-id')).toBe('abc-123');
    const generated = await app.request('/healthz');
    expect(generated.headers.get('x-request-id')).toMatch(/^req_[0-9A-Z]{26}$/);
  });
});
