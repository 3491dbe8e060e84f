import { describe, expect, it } from 'vitest';
import { createOrm, migrate } from '../platform/db/orm.js';
import { createLogger } from '../platform/observability/logger.js';
import { eventsSubgraph } from '../subgraphs/events/index.js';
import { createTestDatabase, query } from './support/database.js';

/**
 * Custom events partitioned by the month they were received in (native range partitions). A
 * database made before the partitions keeps every event and its rollup when it migrates; the
 * months come and go by the partition maker and retention (privacy-retention.test.ts).
 */
describe('custom event partitions', () => {
  const db = eventsSubgraph.db!;
  const upTo = (name: string) => ({ ...db, migrations: db.migrations.slice(0, db.migrations.findIndex((m) => m.name === name)) });

  it('a database made before them migrates every event into its month, keeps the rollup, and the triggers go on counting', { timeout: 120_000 }, async () => {
    const url = await createTestDatabase();
    const logger = createLogger('silent');
    const before = upTo('Migration20261231000200_custom_event_partitions');
    const old = await createOrm(url, before, 2, logger);
    await migrate(url, old, before);
    await old.close();
    // Events received in three months, two of them long ago.
    await query(url, `insert into events.customer (id, store_id, email, created_at, updated_at) values ('cus_1', 'sto_1', 'a@example.com', now(), now())`);
    const received = ['2025-03-10T10:00:00Z', '2025-03-20T10:00:00Z', '2025-07-01T00:00:00Z', new Date().toISOString()];
    for (const [i, at] of received.entries()) {
      await query(
        url,
        `insert into events.custom_event (id, store_id, customer_id, event_name, event_timestamp, unique_id, data, received_at) values ($1, 'sto_1', 'cus_1', 'Viewed', $2, $3, $4, $2)`,
        [`evt_${i}`, at, `u${i}`, JSON.stringify({ i })],
      );
    }
    const stat = () => query<{ slot: Date; events: number }>(url, `select slot, events from events.event_stat where store_id = 'sto_1' order by slot`);
    const rollup = await stat();
    expect(rollup.reduce((n, r) => n + r.events, 0)).toBe(4);

    const orm = await createOrm(url, db, 2, logger);
    await migrate(url, orm, db);
    await orm.close();

    const rows = await query<{ id: string; part: string }>(url, `select id, tableoid::regclass::text as part from events.custom_event order by id`);
    expect(rows.map((r) => r.id)).toEqual(['evt_0', 'evt_1', 'evt_2', 'evt_3']);
    expect(rows[0]!.part).toBe('events.custom_event_y2025m03');
    expect(rows[1]!.part).toBe('events.custom_event_y2025m03');
    expect(rows[2]!.part).toBe('events.custom_event_y2025m07');
    // The current month and three ahead exist, whatever the data.
    const months = await query<{ name: string }>(url, `select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'events.custom_event'::regclass order by 1`);
    const ahead = new Date();
    ahead.setUTCMonth(ahead.getUTCMonth() + 3, 1);
    expect(months.map((m) => m.name)).toContain(`custom_event_y${ahead.getUTCFullYear()}m${String(ahead.getUTCMonth() + 1).padStart(2, '0')}`);
    expect(await stat()).toEqual(rollup);
    // The flows' reference to events is gone (a partitioned key includes the month); the customer's stays.
    const foreign = await query<{ target: string }>(url, `select confrelid::regclass::text as target from pg_constraint where contype = 'f' and conrelid = 'events.flow_run'::regclass`);
    expect(foreign.map((f) => f.target)).not.toContain('events.custom_event');

    // The rollup's triggers work on the partitioned table: an insert and a delete are counted.
    await query(url, `insert into events.custom_event (id, store_id, customer_id, event_name, event_timestamp, received_at) values ('evt_9', 'sto_1', 'cus_1', 'Viewed', now(), now())`);
    await query(url, `delete from events.custom_event where id = 'evt_0'`);
    expect((await stat()).reduce((n, r) => n + r.events, 0)).toBe(4);
    // An id is still one event: the same id and month again is refused.
    await expect(query(url, `insert into events.custom_event (id, store_id, customer_id, event_name, event_timestamp, received_at) select id, store_id, customer_id, event_name, event_timestamp, received_at from events.custom_event where id = 'evt_9'`)).rejects.toThrow(/duplicate key/);
  });

  it('a month is made on demand, and again after retention dropped it', async () => {
    const url = await createTestDatabase();
    const orm = await createOrm(url, db, 2, createLogger('silent'));
    await migrate(url, orm, db);
    await orm.close();
    const made = await query<{ made: boolean }>(url, `select events.ensure_custom_event_partition('2020-02-15T00:00:00Z') as made`);
    expect(made).toEqual([{ made: true }]);
    expect(await query<{ made: boolean }>(url, `select events.ensure_custom_event_partition('2020-02-01T00:00:00Z') as made`)).toEqual([{ made: false }]);
    const [bounds] = await query<{ bound: string }>(url, `select pg_get_expr(c.relpartbound, c.oid) as bound from pg_class c where c.relname = 'custom_event_y2020m02'`);
    expect(bounds!.bound).toBe("FOR VALUES FROM ('2020-02-01 00:00:00+00') TO ('2020-03-01 00:00:00+00')");
  });
});
