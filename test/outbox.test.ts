import { jobTableOptions, type SqlExecutor } from '../platform/jobs/queue-tables.js';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { sql, type EntityManager } from '../platform/db/orm.js';
import { createConsumerQueue, OutboxConsumer, outboxConsumer, registerOutboxConsumers, sweepOutbox } from '../platform/jobs/outbox-consumers.js';
import { OUTBOX_RETENTION_SECONDS, outboxContract, publish, type OutboxEvent } from '../platform/jobs/outbox.js';
import { Strict, Type } from '../platform/validation/index.js';
import { WEBHOOKS_CONSUMER } from '../webhooks/webhook.consumer.js';
import { useTestApp } from './support/app.js';
import { consumedEvents, OUTBOX_EVENTS, query } from './support/database.js';
import { eventually } from './support/eventually.js';

const TestEvent = outboxContract('test.outbox_checked', 'test', 1, Strict({ status: Type.String() }));

describe('transactional outbox', () => {
  const app = useTestApp();
  const events = (subjectId: string) => query<{ data: OutboxEvent }>(app.databaseUrl, `select data from ${OUTBOX_EVENTS} where data->>'subjectId' = $1 order by sequence`, [subjectId]);
  const publishIn = (em: EntityManager, subjectId: string, status = 'x') => publish(em, TestEvent, [{ storeId: 'sto_x', subjectId, data: { status } }]);

  it('commits the event with the change, in the envelope of its contract', async () => {
    await app.service.runtime.platformOrm.em.fork().transactional(async (em) => {
      await sql(em, `insert into setting (key, value) values ('outbox-test-1', 'x')`);
      await publishIn(em, 'sub_commit', 'open');
    });
    const rows = await events('sub_commit');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.data).toMatchObject({ type: 'test.outbox_checked', version: 1, subjectType: 'test', subjectId: 'sub_commit', id: expect.stringMatching(/^evt_/), data: { status: 'open' } });
  });

  it('leaves no event when the change rolls back', async () => {
    await expect(
      app.service.runtime.platformOrm.em.fork().transactional(async (em) => {
        await sql(em, `insert into setting (key, value) values ('outbox-test-2', 'x')`);
        await publishIn(em, 'sub_rollback');
        throw new Error('change failed after the event was written');
      }),
    ).rejects.toThrow('change failed');
    expect(await events('sub_rollback')).toHaveLength(0);
    expect(await query(app.databaseUrl, `select 1 from platform.setting where key = 'outbox-test-2'`)).toHaveLength(0);
  });

  it('refuses to publish outside a transaction', async () => {
    await expect(publishIn(app.service.runtime.platformOrm.em.fork(), 'r')).rejects.toThrow(/outside a transaction/);
  });

  it("consumers' queues keep what is handed to them for years, not pg-boss default 14 days", async () => {
    const { boss } = app.service.runtime;
    await boss.createQueue('test-outbox-legacy');
    await createConsumerQueue(boss, outboxConsumer('test-outbox-legacy', [TestEvent]));
    for (const name of [WEBHOOKS_CONSUMER.name, 'inventory-restock', 'flow-triggers', 'test-outbox-legacy']) {
      expect((await boss.getQueue(name))?.retentionSeconds, name).toBe(OUTBOX_RETENTION_SECONDS);
    }
  });

  it('job tables are vacuumed after a fixed number of dead rows, not 20 % of the table (their fetch index slowed down under churn)', async () => {
    expect(await jobTableOptions(app.service.runtime.boss.getDb() as SqlExecutor)).toEqual(expect.arrayContaining(['autovacuum_vacuum_scale_factor=0', 'autovacuum_vacuum_threshold=20000', 'autovacuum_vacuum_cost_delay=0']));
    const [naptime] = await query<{ setting: string }>(app.databaseUrl, `select setting from pg_settings where name = 'autovacuum_naptime'`);
    expect(naptime!.setting).toBe('5');
  });

  describe('a consumer', () => {
    /** What the test consumer applied, in order; its effect and its position commit together. */
    const applied = () => query<{ subject: string; status: string }>(app.databaseUrl, 'select subject, status from platform.test_applied order by n');
    let failing: string | undefined;
    const consumer = (name: string, batchSize = 100) =>
      new OutboxConsumer({
        declaration: outboxConsumer(name, [TestEvent]),
        orm: app.service.runtime.platformOrm,
        boss: app.service.runtime.boss,
        logger: app.service.runtime.logger,
        batchSize,
        apply: async (em, read) => {
          for (const e of read) {
            // The primary key refuses a second application of one event.
            await sql(em, 'insert into test_applied (event_id, subject, status) values ($1, $2, $3)', [e.id, e.subjectId, (e.data as { status: string }).status]);
            if (e.subjectId === failing) throw new Error('apply failed');
          }
        },
      });
    const drain = async (c: OutboxConsumer) => {
      while ((await c.pass()) > 0);
    };
    const publishing = () => {
      const client = new pg.Client({ connectionString: app.databaseUrl });
      return {
        client,
        open: async () => {
          await client.connect();
          await client.query('begin');
        },
        publish: (subjectId: string, status: string) =>
          client.query(
            `insert into platform.outbox_event (sequence, id, type, version, store_id, subject_type, subject_id, occurred_at, data)
             values (nextval('platform.outbox_sequence'), 'evt_' || md5(random()::text), $1, 1, 'sto_x', 'test', $2, now(), json_build_object('status', $3::text))`,
            [TestEvent.type, subjectId, status],
          ),
      };
    };

    beforeAll(async () => {
      await query(app.databaseUrl, 'create table platform.test_applied (n bigserial, event_id text primary key, subject text, status text)');
    });

    it('reads the events committed after it was registered, each once, in commit order: a transaction that numbered its event first but commits last is read later, not skipped', async () => {
      await query(app.databaseUrl, 'truncate platform.test_applied');
      await registerOutboxConsumers(app.service.runtime.platformOrm, [outboxConsumer('test-order', [TestEvent])]);
      const c = consumer('test-order');
      const late = publishing();
      await late.open();
      await late.publish('late', 'numbered first');
      await app.service.runtime.platformOrm.em.fork().transactional((em) => publishIn(em, 'early', 'numbered second'));
      await drain(c);
      expect(await applied()).toEqual([{ subject: 'early', status: 'numbered second' }]);
      await late.client.query('commit');
      await late.client.end();
      await drain(c);
      expect(await applied()).toEqual([
        { subject: 'early', status: 'numbered second' },
        { subject: 'late', status: 'numbered first' },
      ]);
    });

    it("keeps a subject's commit order when the later change's transaction began writing first", async () => {
      await query(app.databaseUrl, 'truncate platform.test_applied');
      await registerOutboxConsumers(app.service.runtime.platformOrm, [outboxConsumer('test-subject-order', [TestEvent])]);
      const c = consumer('test-subject-order');
      // The later change writes something first (its transaction id is the older), then waits for the subject.
      const later = publishing();
      await later.open();
      await later.client.query(`insert into platform.setting (key, value) values ('outbox-order', 'x')`);
      const earlier = publishing();
      await earlier.open();
      await earlier.client.query(`select pg_advisory_xact_lock(hashtext('subject s'))`);
      await earlier.publish('s', 'first');
      const waiting = later.client.query(`select pg_advisory_xact_lock(hashtext('subject s'))`);
      await earlier.client.query('commit');
      await waiting;
      // The earlier change is read while the later one is still open.
      await drain(c);
      await later.publish('s', 'second');
      await later.client.query('commit');
      await drain(c);
      expect((await applied()).map((r) => r.status)).toEqual(['first', 'second']);
      await earlier.client.end();
      await later.client.end();
    });

    it('takes effect once: a pass whose work fails moves nothing; a large window is read in parts without loss or repeat', async () => {
      await query(app.databaseUrl, 'truncate platform.test_applied');
      await registerOutboxConsumers(app.service.runtime.platformOrm, [outboxConsumer('test-once', [TestEvent])]);
      const c = consumer('test-once', 7);
      await app.service.runtime.platformOrm.em.fork().transactional(async (em) => {
        for (let i = 0; i < 30; i++) await publishIn(em, `once-${i}`, String(i));
      });
      failing = 'once-10';
      await expect(drain(c)).rejects.toThrow('apply failed');
      expect((await applied()).map((r) => r.status)).toEqual(Array.from({ length: 7 }, (_, i) => String(i)));
      failing = undefined;
      await drain(c);
      expect((await applied()).map((r) => r.status)).toEqual(Array.from({ length: 30 }, (_, i) => String(i)));
    });

    it('hands an event that keeps failing alone to its queue and goes on', { timeout: 60_000 }, async () => {
      await query(app.databaseUrl, 'truncate platform.test_applied');
      const declaration = outboxConsumer('test-handover', [TestEvent]);
      const { boss } = app.service.runtime;
      await createConsumerQueue(boss, declaration);
      await registerOutboxConsumers(app.service.runtime.platformOrm, [declaration]);
      const c = consumer('test-handover');
      await app.service.runtime.platformOrm.em.fork().transactional(async (em) => {
        for (const s of ['ok-1', 'poison', 'ok-2']) await publishIn(em, s, s);
      });
      failing = 'poison';
      c.start();
      try {
        const handed = await (async () => {
          for (let i = 0; i < 200; i++) {
            const jobs = await boss.findJobs<OutboxEvent>('test-handover', { queued: true });
            if (jobs.length) return jobs;
            await new Promise((r) => setTimeout(r, 100));
          }
          return [];
        })();
        expect(handed.map((j) => j.data.subjectId)).toEqual(['poison']);
        expect((await applied()).map((r) => r.subject)).toEqual(['ok-1', 'ok-2']);
      } finally {
        await c.stop();
        failing = undefined;
      }
    });

    it('finds a window through indexes, not by scanning the outbox', async () => {
      const client = new pg.Client({ connectionString: app.databaseUrl });
      await client.connect();
      try {
        await client.query('set enable_seqscan = off');
        const plan = async (text: string, params: unknown[]) => (await client.query<{ 'QUERY PLAN': string }>(`explain ${text}`, params)).rows.map((r) => r['QUERY PLAN']).join('\n');
        const [snapshot] = (await client.query<{ s: string }>('select pg_current_snapshot()::text as s')).rows;
        const start = await plan(
          `with w as materialized (select * from platform.outbox_event o where o.tx >= pg_snapshot_xmin($1::pg_snapshot) and not pg_visible_in_snapshot(o.tx, $1::pg_snapshot))
           select * from w order by sequence limit 10`,
          [snapshot!.s],
        );
        expect(start).toContain('outbox_event_tx_index');
        const next = await plan(`select * from platform.outbox_event o where o.sequence > $1::bigint and o.sequence <= $2::bigint order by o.sequence limit 10`, [1, 100]);
        expect(next).toContain('outbox_event_pkey');
      } finally {
        await client.end();
      }
    });

    it('retention deletes what every consumer has read and keeps what one has not', async () => {
      const { platformOrm } = app.service.runtime;
      await query(app.databaseUrl, `delete from platform.outbox_consumer where name like 'test-%'`);
      await registerOutboxConsumers(platformOrm, [outboxConsumer('test-retention-slow', [TestEvent])]);
      await platformOrm.em.fork().transactional((em) => publishIn(em, 'kept'));
      // The service's own consumers move past it (it is none of theirs); the slow one never reads.
      const running = await query<{ name: string }>(app.databaseUrl, `select name from platform.outbox_consumer where name <> 'test-retention-slow'`);
      for (const { name } of running) await consumedEvents(app.databaseUrl, name, `e.subject_id = 'kept'`);
      await sweepOutbox(platformOrm);
      expect(await events('kept')).toHaveLength(1);
      await query(app.databaseUrl, `delete from platform.outbox_consumer where name = 'test-retention-slow'`);
      await eventually(async () => {
        await sweepOutbox(platformOrm);
        return (await events('kept')).length === 0;
      }, 'the event every consumer read to be deleted');
    });
  });
});
