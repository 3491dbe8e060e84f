import { describe, expect, it } from 'vitest';
import { useTestAccount, useTestApp } from './support/app.js';
import { query } from './support/database.js';
import { randomFrom } from './support/random.js';
import { orderBody, pushOrder, type OrderLine } from './support/returns.js';

/**
 * `order_units` (Migration20270125000100_return_stats_by_customer), what a segment's `returnStats`
 * reads its units ordered from: each order's units of lines not removed, with its customer, kept by
 * triggers adding each statement's difference. Racing pushes of the same orders (lines added, taken
 * off, quantities and customers changed) leave every row equal to a recount of what is stored.
 */
describe('units ordered per order, under racing writers', () => {
  const app = useTestApp();
  const acme = useTestAccount(app, 'Acme');

  it('equal the stored lines and customer of every order after concurrent pushes', { timeout: 120_000 }, async () => {
    const random = randomFrom(7);
    const customers = [
      { email: 'Ann@Example.com', phoneNumber: '+15550001111' },
      { email: 'bob@example.com', phoneNumber: null },
      { email: 'cy@example.com', phoneNumber: '+15550003333' },
    ];
    const push = (n: number) => {
      // Four lines to choose from: each push keeps some of them (the rest are taken off) with new quantities.
      const lines: OrderLine[] = ['a', 'b', 'c', 'd'].filter(() => random() < 0.7).map((id) => ({ id, quantity: 1 + Math.floor(random() * 5), price: '10.00', sku: id }));
      const createdAt = new Date(Date.parse('2026-10-01T00:00:00Z') + Math.floor(random() * 30) * 86_400_000).toISOString();
      return pushOrder(app, acme, orderBody({ id: `race-${n % 3}`, createdAt, customer: { ...customers[Math.floor(random() * 3)]!, firstName: 'C' } }, lines.length ? lines : [{ id: 'a', quantity: 1, price: '10.00' }]));
    };
    for (const n of [0, 1, 2]) {
      const first = await push(n);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
    }
    const answers = await Promise.all(Array.from({ length: 30 }, (_, n) => push(n)));
    // A push that lost a race on the order's row may be refused with a retryable answer; none fails otherwise.
    for (const res of answers) expect([200, 409], JSON.stringify(res.body)).toContain(res.status);
    expect(answers.filter((r) => r.status === 200).length).toBeGreaterThan(3);

    const rows = await query<{ order: string; units: string; recount: string; copy: unknown; stored: unknown }>(
      app.databaseUrl,
      `select o.external_id as order, u.units::text as units,
              (select coalesce(sum(l.quantity), 0) from returns.order_line_item l where l.order_id = o.id and l.removed_at is null)::text as recount,
              json_build_array(u.store_id, u.created_at, u.email, u.phone, u.imported) as copy,
              json_build_array(o.store_id, o.created_at, lower(o.customer_email), o.customer_phone, o.imported_at is not null) as stored
         from returns."order" o left join returns.order_units u on u.order_id = o.id where o.store_id = $1 order by 1`,
      [acme.storeId],
    );
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      expect(row.units, row.order).toBe(row.recount);
      expect(row.copy, row.order).toEqual(row.stored);
    }
  });
});
