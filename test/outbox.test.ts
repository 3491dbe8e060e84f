import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishInTransaction, WEBHOOK_OUTBOX_QUEUE } from '../platform/outbox.js';
import { sql } from '../platform/db/orm.js';
import { startTestApp, type TestApp } from './support/app.js';
import { query } from './support/database.js';

describe('transactional outbox', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app?.stop();
  });

  const jobsFor = (subjectId: string) =>
    query(app.databaseUrl, `select data from pgboss.job where name = $1 and data->>'subjectId' = $2`, [WEBHOOK_OUTBOX_QUEUE, subjectId]);

  it('commits the event with the change', async () => {
    const { boss, platformOrm } = app.service.runtime;
    await platformOrm.em.fork().transactional(async (em) => {
      await sql(em, `insert into setting (key, value) values ('outbox-test-1', 'x')`);
      await publishInTransaction(boss, em, { type: 'return.updated', storeId: 'sto_x', subjectType: 'return', subjectId: 'ret_commit', data: { status: 'open' } });
    });
    const jobs = await jobsFor('ret_commit');
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.data).toMatchObject({ type: 'return.updated', subjectId: 'ret_commit', id: expect.stringMatching(/^evt_/), data: { status: 'open' } });
  });

  it('leaves no event when the change rolls back', async () => {
    const { boss, platformOrm } = app.service.runtime;
    await expect(
      platformOrm.em.fork().transactional(async (em) => {
        await sql(em, `insert into setting (key, value) values ('outbox-test-2', 'x')`);
        await publishInTransaction(boss, em, { type: 'return.updated', storeId: 'sto_x', subjectType: 'return', subjectId: 'ret_rollback', data: {} });
        throw new Error('change failed after the event was written');
      }),
    ).rejects.toThrow('change failed');
    expect(await jobsFor('ret_rollback')).toHaveLength(0);
    expect(await query(app.databaseUrl, `select 1 from platform.setting where key = 'outbox-test-2'`)).toHaveLength(0);
  });

  it('refuses to publish outside a transaction', async () => {
    const { boss, platformOrm } = app.service.runtime;
    await expect(publishInTransaction(boss, platformOrm.em.fork(), { type: 'return.created', storeId: 's', subjectType: 'return', subjectId: 'r', data: {} })).rejects.toThrow(/outside a transaction/);
  });
});
