import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import type { Migration } from '@mikro-orm/migrations';
import { CompiledQuery, type Kysely } from 'kysely';
import pg from 'pg';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from '../config.js';
import type { Logger } from '../observability/logger.js';
import { createPool, HealingPostgresDialect, poolConfig } from './pool.js';

export type { EntityManager };

/**
 * A slice of the database owned by one part of the system: its own PostgreSQL
 * schema and migrations. Subgraphs never touch each other's schemas.
 *
 * How the code talks to PostgreSQL (the same in every part): MikroORM owns the
 * connections, the per-request and per-job EntityManagers, transactions and
 * migrations; queries are SQL through `sql()` below, with typed row interfaces
 * next to the code that reads them, and the shared builders of db/keyset.ts.
 * The work here is set-based (batched inserts, aggregated reads, row locks,
 * keyset pages), which entities would only wrap; so there are none.
 */
export interface DbModule {
  name: string;
  schema: string;
  migrations: { name: string; class: new (...args: never[]) => Migration }[];
}

export type Orm = MikroORM;

const pools = new WeakMap<Orm, pg.Pool>();

/** The connection pool under an ORM (metrics, readiness). */
export function poolOf(orm: Orm): pg.Pool {
  return pools.get(orm)!;
}

/** An ORM over its own pool on the module's schema: on the primary (every write), or on a read replica (`role: 'replica'`: heavy reads only, platform/db/replica.ts). */
export async function createOrm(url: string, module: DbModule, poolSize: number, logger: Logger, timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS, role: 'primary' | 'replica' = 'primary'): Promise<Orm> {
  const pool = createPool(
    {
      ...poolConfig(url, `returns-platform ${module.name}${role === 'replica' ? ' replica' : ''}`, poolSize, timeouts, role),
      // Each module's pool searches its own schema first, so its raw SQL names its tables unqualified.
      options: `-c search_path=${module.schema},public`,
      // Connections live a minute idle: re-opening one costs a SCRAM handshake on the request that needs it.
      idleTimeoutMillis: 60_000,
    },
    logger,
  );
  const orm = await MikroORM.init({
    clientUrl: url,
    // The pool, and the driver that keeps it whole when the database dies (pool.ts). Its rows use
    // node-postgres' own type parsers (timestamptz -> Date), so raw `sql()` rows match the row types.
    driverOptions: new HealingPostgresDialect(pool, module.name),
    schema: module.schema,
    entities: [],
    discovery: { warnWhenNoEntities: false },
    extensions: [Migrator],
    // Every request and job forks its own EntityManager; the global one must never be used.
    allowGlobalContext: false,
    debug: false,
    logger: (message) => logger.debug({ orm: module.name }, message),
    migrations: {
      tableName: 'mikro_orm_migrations',
      schema: module.schema,
      migrationsList: module.migrations as never,
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      silent: true,
    },
  });
  pools.set(orm, pool);
  return orm;
}

/**
 * Applies the module's pending migrations. Several processes (split mode) may
 * start at once, so the run holds a PostgreSQL advisory lock named after the module.
 * When every migration is recorded as applied already (a database in use), one read
 * says so and nothing else runs: no connection of its own, no lock, no migrator.
 */
export async function migrate(url: string, orm: Orm, module: DbModule): Promise<void> {
  if (await migrated(orm, module)) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock(hashtext($1))', [`migrate:${module.schema}`]);
    await client.query(`create schema if not exists "${module.schema}"`);
    // In one transaction without the pools' statement timeout: a migration may take its time.
    await orm.em.getConnection().transactional(async (trx) => {
      await trx.executeQuery(CompiledQuery.raw('set local statement_timeout = 0'));
      await orm.migrator.up({ transaction: trx });
    });
  } finally {
    await client.query('select pg_advisory_unlock(hashtext($1))', [`migrate:${module.schema}`]).catch(() => {});
    await client.end();
  }
}

/**
 * Whether the module's migrations table lists every one of its migrations. A migration's name is
 * recorded in the transaction that applies it, so a name seen is a migration done. Anything else
 * (no schema or table yet: a new database) says no, and the full run decides.
 */
async function migrated(orm: Orm, module: DbModule): Promise<boolean> {
  try {
    const rows = await sql<{ name: string }>(orm.em.fork(), `select name from "${module.schema}".mikro_orm_migrations`);
    const applied = new Set(rows.map((r) => r.name));
    return module.migrations.every((m) => applied.has(m.name));
  } catch {
    return false;
  }
}

/**
 * Runs SQL with native `$1` parameters on the EntityManager's connection,
 * inside its transaction when it has one. (MikroORM's own `execute` inlines
 * parameters into the text and reads `?` as a placeholder, which clashes with
 * the jsonb `?` operators and defeats prepared plans.)
 */
export async function sql<T = Record<string, unknown>>(em: EntityManager, text: string, params: readonly unknown[] = []): Promise<T[]> {
  const connection = em.getConnection();
  await connection.ensureConnection();
  const executor: Pick<Kysely<unknown>, 'executeQuery'> = em.getTransactionContext<Kysely<unknown>>() ?? connection.getClient();
  const result = await executor.executeQuery<T>(CompiledQuery.raw(text, params as unknown[]));
  return result.rows as T[];
}

/** PostgreSQL refused a number its column cannot hold (SQLSTATE 22003): an integer total would overflow. */
export function isOutOfRange(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '22003';
}
