import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { MATCHING_CUSTOMERS } from '../subgraphs/events/customers/customer-resolution.service.js';
import { useTestApp } from './support/app.js';

/**
 * Regression: identity resolution joined the batch's identifiers on "id or email or phone", which
 * no index answers, so every batch read (and compared against) every customer of its stores:
 * processing slowed down as stores grew. Each identifier must be one index lookup.
 */
describe('identity resolution lookup', () => {
  const app = useTestApp();

  it('finds a batch of customers by id, email and phone through their indexes, not by scanning the store', async () => {
    const account = await app.createAccount('Lookup plan');
    const client = new pg.Client({ connectionString: app.databaseUrl });
    await client.connect();
    try {
      await client.query('set search_path = events');
      await client.query(
        `insert into customer (id, store_id, email, phone_number, created_at, updated_at)
         select 'cus_lookup_' || i, $1, 'c' || i || '@example.com', '+1555' || lpad(i::text, 7, '0'), now(), now() from generate_series(1, 5000) i`,
        [account.storeId],
      );
      await client.query('analyze customer');
      const keys = Array.from({ length: 100 }, (_, i) => i * 37 + 1);
      const args = [keys.map(() => account.storeId), keys.map((i) => `cus_lookup_${i}`), keys.map((i) => `c${i + 1}@example.com`), keys.map((i) => `+1555${String(i + 2).padStart(7, '0')}`)];
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain ${MATCHING_CUSTOMERS}`, args);
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).not.toMatch(/Seq Scan on customer/);
      for (const index of ['customer_pkey', 'customer_store_email_unique', 'customer_store_phone_unique']) expect(plan).toContain(index);
      // And the lookup answers: each key's three identifiers point at three different customers.
      const found = await client.query(MATCHING_CUSTOMERS.replace(' for update of c', ''), args);
      expect(found.rows).toHaveLength(300);
    } finally {
      await client.end();
    }
  });
});
