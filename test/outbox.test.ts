import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../platform/db/orm.js';
import { OUTBOX_RETENTION_SECONDS, outboxContract, publish, subscribeQueue } from '../platform/outbox.js';
import { Strict, Type } from '../platform/validation/index.js';
import { WEBHOOK_OUTBOX_QUEUE } from '../server/runtime.js';
import { useTestApp } from './support/app.js';
import { query } from './support/database.js';

const TestEvent = outboxContract('test.outbox_checked', 'test', 1, Strict({ status: Type.String() }));
const TEST_QUEUE = 'test-outbox-consumer';

describe('transactional outbox', () => {
  const app = useTestApp();
  beforeAll(async () => {
    await subscribeQueue(app.service.runtime.boss, TEST_QUEUE, [TestEvent]);
  });

  const jobsFor = (subjectId: string) => query(app.databaseUrl, `select data from pgboss.job where name = $1 and data->>'subjectId' = $2`, [TEST_QUEUE, subjectId]);

  it('commits the event with the change, in the envelope of its contract', async () => {
    const { boss, platformOrm } = app.service.runtime;
    await platformOrm.em.fork().transactional(async (em) => {
      await sql(em, `insert into setting (key, value) values ('outbox-test-1', 'x')`);
      await publish(boss, em, TestEvent, [{ storeId: 'sto_x', subjectId: 'sub_commit', data: { status: 'open' } }]);
    });
    const jobs = await jobsFor('sub_commit');
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.data).toMatchObject({ type: 'test.outbox_checked', version: 1, subjectType: 'test', subjectId: 'sub_commit', id: expect.stringMatching(/^evt_/), data: { status: 'open' } });
  });

  it('leaves no event when the change rolls back', async () => {
    const { boss, platformOrm } = app.service.runtime;
    await expect(
      platformOrm.em.fork().transactional(async (em) => {
        await sql(em, `insert into setting (key, value) values ('outbox-test-2', 'x')`);
        await publish(boss, em, TestEvent, [{ storeId: 'sto_x', subjectId: 'sub_rollback', data: { status: 'x' } }]);
        throw new Error('change failed after the event was written');
      }),
    ).rejects.toThrow('change failed');
    expect(await jobsFor('sub_rollback')).toHaveLength(0);
    expect(await query(app.databaseUrl, `select 1 from platform.setting where key = 'outbox-test-2'`)).toHaveLength(0);
  });

  it('refuses to publish outside a transaction', async () => {
    const { boss, platformOrm } = app.service.runtime;
    await expect(publish(boss, platformOrm.em.fork(), TestEvent, [{ storeId: 's', subjectId: 'r', data: { status: 'x' } }])).rejects.toThrow(/outside a transaction/);
  });

  it('outbox queues keep unworked events for years, not pg-boss default 14 days (regression: webhooks-outbox lost events after 14 days)', async () => {
    const queues = await query<{ name: string; retention: number }>(
      app.databaseUrl,
      `select name, retention_seconds as retention from pgboss.queue where name = any($1)`,
      [[WEBHOOK_OUTBOX_QUEUE, 'inventory-restock', TEST_QUEUE]],
    );
    expect(queues).toHaveLength(3);
    for (const q of queues) expect(q.retention, q.name).toBe(OUTBOX_RETENTION_SECONDS);
    const { boss, platformOrm } = app.service.runtime;
    await platformOrm.em.fork().transactional((em) => publish(boss, em, TestEvent, [{ storeId: 'sto_x', subjectId: 'sub_kept', data: { status: 'x' } }]));
    const [job] = await query<{ years: number }>(app.databaseUrl, `select extract(epoch from keep_until - created_on) / (365 * 86400) as years from pgboss.job where name = $1 and data->>'subjectId' = 'sub_kept'`, [TEST_QUEUE]);
    expect(Number(job!.years)).toBeGreaterThan(9.9);
  });

  it('job tables are vacuumed after a fixed number of dead rows, not 20 % of the table (their fetch index slowed down under churn)', async () => {
    const [table] = await query<{ options: string[] }>(app.databaseUrl, `select reloptions as options from pg_class where oid = 'pgboss.job_common'::regclass`);
    expect(table!.options).toEqual(expect.arrayContaining(['autovacuum_vacuum_scale_factor=0', 'autovacuum_vacuum_threshold=20000', 'autovacuum_vacuum_cost_delay=0']));
    const [naptime] = await query<{ setting: string }>(app.databaseUrl, `select setting from pg_settings where name = 'autovacuum_naptime'`);
    expect(naptime!.setting).toBe('5');
  });

  it('a queue created with the default retention is brought to the outbox retention on the next start', async () => {
    const { boss } = app.service.runtime;
    await boss.createQueue('test-outbox-legacy');
    await subscribeQueue(boss, 'test-outbox-legacy', [TestEvent]);
    const [q] = await query<{ retention: number }>(app.databaseUrl, `select retention_seconds as retention from pgboss.queue where name = 'test-outbox-legacy'`);
    expect(q!.retention).toBe(OUTBOX_RETENTION_SECONDS);
  });
});
