import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_OUTBOX_QUEUE } from '../server/runtime.js';
import { useTestApp } from './support/app.js';

/**
 * Regression: each fan-out pass sorted every waiting outbox job on a JSON field, so passes slowed
 * down as the backlog grew (a burst of events could leave webhook delivery behind for good). The
 * pass's read must be answerable from an index in sequence order.
 */
describe('the webhook fan-out', () => {
  const app = useTestApp();

  it('reads the waiting outbox jobs through an index in sequence order, not by sorting the backlog', async () => {
    const client = new pg.Client({ connectionString: app.databaseUrl });
    await client.connect();
    try {
      // Only whether the index can serve the read: on a small table a sequential scan is cheaper anyway.
      await client.query('set enable_seqscan = off');
      await client.query('set enable_sort = off');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(
        `explain select id, data from pgboss.job where name = $1 and state = 'created' order by (data->>'sequence')::bigint nulls first, created_on limit 1000`,
        [WEBHOOK_OUTBOX_QUEUE],
      );
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(plan).toContain('webhooks_outbox_by_sequence');
      expect(plan).not.toMatch(/^\s*->\s*Sort/m);
    } finally {
      await client.end();
    }
  });
});
