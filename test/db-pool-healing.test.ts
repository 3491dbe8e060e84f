import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DATABASE_TIMEOUTS } from '../platform/config.js';
import { createOrm, poolOf, sql, type DbModule, type EntityManager, type Orm } from '../platform/db/orm.js';
import { isDatabaseUnavailable } from '../platform/errors.js';
import { createLogger } from '../platform/observability/logger.js';
import { createTestDatabase } from './support/database.js';

const scratch: DbModule = { name: 'scratch', schema: 'public', migrations: [] };

/** Fails (instead of hanging the test) when `work` does not settle within `ms`. */
function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms)));
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * The pools' driver (platform/db/pool.ts) against connections that die while checked out, as
 * they do when the database crashes: each must be destroyed and replaced, never kept by the pool.
 */
describe('database pools: a connection that dies in use', () => {
  let url: string;
  let admin: pg.Client;
  const orms: Orm[] = [];
  const open = async (poolSize: number, timeouts = DEFAULT_DATABASE_TIMEOUTS) => {
    const orm = await createOrm(url, scratch, poolSize, createLogger('silent'), timeouts);
    orms.push(orm);
    return orm;
  };

  beforeAll(async () => {
    url = await createTestDatabase();
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  });
  afterAll(async () => {
    for (const orm of orms) await orm.close();
    await admin?.end();
  });

  /** Ends the backend of `em`'s connection, as a crash does, and waits until it is gone. */
  const terminate = async (em: EntityManager) => {
    const [{ pid }] = (await sql<{ pid: number }>(em, 'select pg_backend_pid() as pid')) as [{ pid: number }];
    await admin.query('select pg_terminate_backend($1, 10000)', [pid]);
  };

  it('gives back the connection of every transaction cut off (mid-transaction or before its commit): the pool never runs dry', async () => {
    const orm = await open(2);
    // Three times what the pool holds: without the healing driver each failure kept a connection for ever.
    for (let i = 0; i < 3; i++) {
      const midway = orm.em.fork().transactional(async (em) => {
        await terminate(em);
        await sql(em, 'select 1');
      });
      await expect(within(midway, 10_000, `transaction ${i} cut off midway`)).rejects.toSatisfy(isDatabaseUnavailable);
      const atCommit = orm.em.fork().transactional(terminate);
      await expect(within(atCommit, 10_000, `transaction ${i} cut off before its commit`)).rejects.toSatisfy(isDatabaseUnavailable);
    }
    const pool = poolOf(orm);
    expect(await within(sql(orm.em.fork(), 'select 1 as one'), 10_000, 'a query after the failures')).toEqual([{ one: 1 }]);
    expect({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }).toEqual({ total: 1, idle: 1, waiting: 0 });
  });

  it('keeps nested transactions (savepoints) working: an inner failure rolls back only its own part', async () => {
    const orm = await open(2);
    await sql(orm.em.fork(), 'create table if not exists healing_nested (n int)');
    await orm.em.fork().transactional(async (em) => {
      await sql(em, 'insert into healing_nested values (1)');
      await expect(
        em.transactional(async (inner) => {
          await sql(inner, 'insert into healing_nested values (2)');
          throw new Error('inner fails');
        }),
      ).rejects.toThrow('inner fails');
      await sql(em, 'insert into healing_nested values (3)');
    });
    expect(await sql(orm.em.fork(), 'select n from healing_nested order by n')).toEqual([{ n: 1 }, { n: 3 }]);
  });

  it('answers a wait for a connection past the acquire timeout with an error that means "retry" (503), naming the pool', async () => {
    const orm = await open(1, { ...DEFAULT_DATABASE_TIMEOUTS, acquireMs: 300 });
    // The one connection opened first, so the holder below does not race the short timeout opening it.
    await sql(orm.em.fork(), 'select 1');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holder = orm.em.fork().transactional(async (em) => {
      await sql(em, 'select 1');
      await held;
    });
    try {
      await expect.poll(() => poolOf(orm).idleCount === 0 && poolOf(orm).totalCount === 1).toBe(true);
      const waited = await sql(orm.em.fork(), 'select 1').catch((err: unknown) => err);
      expect(isDatabaseUnavailable(waited), String(waited)).toBe(true);
      expect((waited as Error).message).toContain('no connection from the scratch pool');
    } finally {
      release();
      await holder;
    }
    expect(await sql(orm.em.fork(), 'select 1 as one')).toEqual([{ one: 1 }]);
  });

  it('cancels a statement past the statement timeout, also an error that means "retry"', async () => {
    const orm = await open(1, { ...DEFAULT_DATABASE_TIMEOUTS, statementMs: 1000 });
    const slow = await sql(orm.em.fork(), 'select pg_sleep(30)').catch((err: unknown) => err);
    expect((slow as { code?: string }).code).toBe('57014');
    expect(isDatabaseUnavailable(slow)).toBe(true);
    expect(await sql(orm.em.fork(), 'select 1 as one')).toEqual([{ one: 1 }]);
  });
});
