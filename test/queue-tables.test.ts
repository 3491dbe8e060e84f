import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../platform/config.js';
import { createLogger } from '../platform/observability/logger.js';
import { ensureQueue, startQueue, type PgBoss } from '../platform/jobs/queue.js';
import {
  activeJobsStartedBefore,
  deleteJobRows,
  findJobRows,
  jobTableOptions,
  queueDepths,
  rewriteJobRows,
  vacuumJobTablesEarly,
} from '../platform/jobs/queue-tables.js';
import { createTestDatabase } from './support/database.js';

/**
 * The adapter to pg-boss's own tables (platform/jobs/queue-tables.ts), each function against jobs
 * made and moved through pg-boss's API. `npm run test:pg-boss-upgrade` runs this file (with the
 * other queue tests) against another pg-boss version: what a new version changes in its tables
 * shows here first.
 */
describe('queue-tables: the one adapter to pg-boss tables', () => {
  let boss: PgBoss;
  const db = () => boss.getDb();

  beforeAll(async () => {
    boss = await startQueue(await createTestDatabase(), createLogger('silent'), { supervise: false, poolSize: 2, timeouts: loadConfig({}).dbTimeouts });
    await ensureQueue(boss, 'qt-a');
    await ensureQueue(boss, 'qt-b');
  });
  afterAll(async () => {
    await boss?.stop({ graceful: false, close: true });
  });

  it('queueDepths counts queued, deferred and active jobs per queue, with the age of the oldest due one', async () => {
    await boss.send('qt-a', { storeId: 'sto_1', email: 'ann@example.com' });
    await boss.send('qt-a', { storeId: 'sto_2' });
    await boss.send('qt-a', { storeId: 'sto_1' }, { startAfter: 3600 });
    const [fetched] = await boss.fetch('qt-a');
    expect(fetched).toBeDefined();
    const depths = await queueDepths(db());
    const a = depths.find((d) => d.name === 'qt-a')!;
    expect(a).toMatchObject({ queued: 1, deferred: 1, active: 1 });
    expect(a.oldest).toBeGreaterThanOrEqual(0);
    expect(depths.find((d) => d.name === 'qt-b')).toMatchObject({ queued: 0, deferred: 0, active: 0, oldest: null });
    await boss.complete('qt-a', fetched!.id);
  });

  it('activeJobsStartedBefore finds the jobs a worker holds since before a time', async () => {
    const id = await boss.send('qt-b', { n: 1 });
    await boss.fetch('qt-b');
    expect(await activeJobsStartedBefore(db(), new Date(Date.now() + 60_000))).toContainEqual({ name: 'qt-b', id });
    expect(await activeJobsStartedBefore(db(), new Date(Date.now() - 60_000))).not.toContainEqual({ name: 'qt-b', id });
    await boss.complete('qt-b', id!);
  });

  it('findJobRows filters by queue, state, store and mention; rewriteJobRows and deleteJobRows change what they found', async () => {
    await boss.send('qt-a', { storeId: 'sto_3', email: 'bob@example.com' });
    const mentioned = await findJobRows(db(), { names: ['qt-a'], unfinished: true, mentioning: 'bob@example\\.com' });
    expect(mentioned.map((j) => j.data)).toEqual([{ storeId: 'sto_3', email: 'bob@example.com' }]);
    // The first test's jobs of sto_1: one completed, one deferred.
    expect((await findJobRows(db(), { names: ['qt-a'], storeId: 'sto_1' })).map((j) => j.state).sort()).toEqual(['completed', 'created']);

    const job = mentioned[0]!;
    await rewriteJobRows(db(), [{ name: job.name, id: job.id, data: { storeId: 'sto_3', email: null }, output: null, sourceOutput: null }]);
    expect(await findJobRows(db(), { mentioning: 'bob@example\\.com' })).toEqual([]);
    expect((await boss.getJobById('qt-a', job.id))?.data).toEqual({ storeId: 'sto_3', email: null });

    // Left unfinished: sto_2's (due), sto_1's (deferred) and sto_3's.
    const unfinished = await findJobRows(db(), { names: ['qt-a'], unfinished: true });
    expect(unfinished.map((j) => (j.data as { storeId: string }).storeId).sort()).toEqual(['sto_1', 'sto_2', 'sto_3']);
    await deleteJobRows(db(), unfinished);
    expect(await findJobRows(db(), { names: ['qt-a'], unfinished: true })).toEqual([]);
    expect(await boss.getJobById('qt-a', job.id)).toBeNull();
  });

  it('vacuumJobTablesEarly sets the job tables autovacuum options once', async () => {
    await vacuumJobTablesEarly(db());
    await vacuumJobTablesEarly(db());
    expect(await jobTableOptions(db())).toEqual(expect.arrayContaining(['autovacuum_vacuum_scale_factor=0', 'autovacuum_vacuum_threshold=20000']));
  });
});
