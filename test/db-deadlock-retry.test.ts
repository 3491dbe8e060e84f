import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryOnDeadlock } from '../platform/db/orm.js';
import { createTestDatabase } from './support/database.js';

/**
 * `retryOnDeadlock` against a real deadlock: PostgreSQL aborts one transaction of a cycle
 * (SQLSTATE 40P01), and the work, run again once the other side went on, goes through. Webhook
 * subscriptions' delete and update use it (their cascade can deadlock with a deliverer's claim).
 */
describe('retryOnDeadlock', () => {
  let url: string;
  const clients: pg.Client[] = [];
  const connect = async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    clients.push(client);
    return client;
  };
  beforeAll(async () => {
    url = await createTestDatabase();
    const setup = await connect();
    await setup.query('create table pair (id int primary key, n int not null default 0); insert into pair (id) values (1), (2)');
  });
  afterAll(async () => {
    for (const client of clients) await client.end().catch(() => undefined);
  });

  it('runs a transaction again when PostgreSQL aborted it to break a deadlock, and lets other errors through', async () => {
    const other = await connect();
    const worker = await connect();
    // The other side waits longer before checking for a deadlock, so the worker is the one aborted.
    await other.query(`set deadlock_timeout = '10s'`);
    await other.query('begin');
    await other.query('update pair set n = n + 1 where id = 1');

    let runs = 0;
    let locked!: () => void;
    const holdsRowTwo = new Promise<void>((resolve) => (locked = resolve));
    const work = retryOnDeadlock(async () => {
      runs++;
      await worker.query('begin');
      try {
        await worker.query('update pair set n = n + 1 where id = 2');
        locked();
        await worker.query('update pair set n = n + 1 where id = 1');
        await worker.query('commit');
      } catch (err) {
        await worker.query('rollback');
        throw err;
      }
    });
    await holdsRowTwo;
    // Closes the cycle: the worker waits for row 1 (ours), we now wait for row 2 (the worker's).
    await other.query('update pair set n = n + 1 where id = 2');
    await other.query('commit');
    await work;
    expect(runs).toBe(2);
    const { rows } = await other.query<{ id: number; n: number }>('select id, n from pair order by id');
    expect(rows).toEqual([
      { id: 1, n: 2 },
      { id: 2, n: 2 },
    ]);

    await expect(retryOnDeadlock(() => worker.query('select 1 / 0'))).rejects.toMatchObject({ code: '22012' });
  });
});
