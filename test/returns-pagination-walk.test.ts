import { beforeAll, describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { query } from './support/database.js';
import { seededRandom } from './support/random.js';
import { orderBody, postReturn, pushOrder, returnBody } from './support/returns.js';

const SEEDED = 3000;

describe('walking thousands of returns while others are created and updated', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Acme');
  let seeded: string[];
  beforeAll(async () => {
    await pushOrder(app, acme, orderBody({ id: 'W-1' }, [{ id: 'a', quantity: SEEDED + 1000, price: '1.00', sku: 'W' }]));
    const template = await postReturn(app, acme, returnBody('W-1', [{ lineItemId: 'a', quantity: 1, reason: 'r' }]));
    // Copies of a return made through the API, spread over an hour with many shared timestamps.
    await query(
      app.databaseUrl,
      `insert into returns.return (id, store_id, order_id, status, type, provider, order_name, currency, source, destination, compensation_methods, created_at, updated_at)
       select 'ret_W' || lpad(g::text, 25, '0'), t.store_id, t.order_id, t.status, t.type, t.provider, t.order_name, t.currency, t.source, t.destination,
              t.compensation_methods, now() - interval '2 hours', timestamptz '2026-01-01T00:00:00Z' + (g % 700) * interval '5 seconds'
         from returns.return t, generate_series(1, $2::int) g where t.id = $1`,
      [template.body.return.id, SEEDED],
    );
    await query(
      app.databaseUrl,
      `insert into returns.return_item (id, return_id, order_line_item_id, position, quantity, reason, compensation, refund_amount, product_value)
       select 'rti_W' || lpad(g::text, 25, '0'), 'ret_W' || lpad(g::text, 25, '0'), i.order_line_item_id, 0, 1, i.reason, i.compensation, i.refund_amount, i.product_value
         from returns.return_item i, generate_series(1, $2::int) g where i.return_id = $1`,
      [template.body.return.id, SEEDED],
    );
    seeded = [template.body.return.id, ...Array.from({ length: SEEDED }, (_, i) => `ret_W${String(i + 1).padStart(25, '0')}`)];
  });

  it('sees every return that was not changed exactly once, and repeats none', async () => {
    const seen: string[] = [];
    const created: string[] = [];
    let walking = true;
    let cursor: string | null = null;
    const random = seededRandom();
    const fetchPage = async () => {
      const res = await app.request(`/v2.2/stores/${acme.storeId}/returns?page-size=100${cursor ? `&page-continue=${encodeURIComponent(cursor)}` : ''}`, { token: acme.apiSecret });
      expect(res.status).toBe(200);
      seen.push(...(await res.json()).returns.map((r: { id: string }) => r.id));
      cursor = res.headers.get('x-page-next');
    };
    // The writers start once the first page is read: a return created before that may rightly
    // be on it; one created after sorts before the walk's start and must never show up.
    await fetchPage();
    // Writers racing the walk: new returns, and changes to returns the walk already passed.
    const writers = Array.from({ length: 3 }, async (_, w) => {
      let n = 0;
      while (walking) {
        if ((n++ + w) % 2 === 0) {
          const res = await postReturn(app, acme, returnBody('W-1', [{ lineItemId: 'a', quantity: 1, reason: `during walk ${w}` }]));
          expect(res.status).toBe(201);
          created.push(res.body.return.id);
        } else {
          const target = seen[Math.floor(random() * seen.length)]!;
          const res = await app.request(`/v2.2/returns/${target}/comments`, {
            method: 'POST',
            token: acme.apiSecret,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ comment: { message: 'touched during the walk' } }),
          });
          expect(res.status).toBe(201);
        }
      }
    });
    while (cursor) await fetchPage();
    walking = false;
    await Promise.all(writers);

    expect(created.length).toBeGreaterThan(0);
    expect(new Set(seen).size).toBe(seen.length);
    const seenSet = new Set(seen);
    expect(seeded.filter((id) => !seenSet.has(id))).toEqual([]);
    // Returns created during the walk sort before it and are not part of it.
    expect(created.filter((id) => seenSet.has(id))).toEqual([]);
  });
});
