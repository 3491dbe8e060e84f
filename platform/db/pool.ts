import { CompiledQuery, PostgresDialect, type DatabaseConnection, type Driver, type QueryResult, type TransactionSettings } from 'kysely';
import pg from 'pg';
import type { DatabaseTimeouts } from '../config.js';
import type { Logger } from '../observability/logger.js';
import { waitingOn } from '../observability/waits.js';
import { settlesWithin } from '../timeouts.js';

/**
 * What every connection a process opens shares: its name in `pg_stat_activity`, how long opening
 * it may take, and TCP keepalive, so a connection whose server vanished without closing the socket
 * (a host gone, a network cut) is found and dropped instead of waited on for ever.
 */
export function connectionConfig(url: string, name: string, timeouts: DatabaseTimeouts): pg.ClientConfig {
  return {
    connectionString: url,
    application_name: name,
    connectionTimeoutMillis: timeouts.acquireMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: timeouts.keepAliveMs,
  };
}

/** The SQLSTATE PostgreSQL answers a write on a read-only node with (read_only_sql_transaction). */
const READ_ONLY_SQLSTATE = '25006';

/**
 * Refuses a connection that reached a standby. Behind a proxy in front of a cluster, a connection
 * opened during a failover may land on a node that is (still, or already again) read-only: a
 * demoted former primary, or a standby a slow health check still routes to. node-postgres has no
 * `target_session_attrs`, so every connection that may write asks itself on connect; a standby's
 * is closed at once and fails like an unreachable database (the request answers 503, the pool
 * opens another on the next use). One round trip per new connection.
 */
async function requirePrimary(client: pg.ClientBase): Promise<void> {
  const { rows } = await client.query<{ standby: boolean }>('select pg_is_in_recovery() as standby');
  if (rows[0]?.standby) throw Object.assign(new Error('connected to a read-only standby, not the primary'), { code: READ_ONLY_SQLSTATE });
}

/**
 * A pool's connections, any pool (the ORMs' and pg-boss's): the above, where
 * `connectionTimeoutMillis` bounds the whole wait for a connection (a free one or a new one), and
 * a statement timeout so no statement holds a connection for ever. Only a primary's connections are
 * kept (`requirePrimary`), unless the pool is a replica's.
 */
export function poolConfig(url: string, name: string, max: number, timeouts: DatabaseTimeouts, role: 'primary' | 'replica' = 'primary'): pg.PoolConfig {
  return {
    ...connectionConfig(url, name, timeouts),
    max,
    ...(timeouts.statementMs > 0 && { statement_timeout: timeouts.statementMs }),
    ...(role === 'primary' && { onConnect: requirePrimary }),
  };
}

/** A pool whose connection failures are logged instead of taking the process down. */
export function createPool(config: pg.PoolConfig, logger: Logger): pg.Pool {
  const pool = new pg.Pool(config);
  const name = config.application_name;
  // An idle connection that died: the pool has dropped it already.
  pool.on('error', (err) => logger.debug({ pool: name, err: err.message }, 'idle database connection lost'));
  // A checked-out one: its holder's statement fails, and the release below destroys it. pg emits
  // 'error' on it meanwhile, which without a listener would be an uncaught exception.
  pool.on('connect', (client) => client.on('error', (err) => logger.debug({ pool: name, err: err.message }, 'database connection lost while in use')));
  return pool;
}

/** Says a pool could not give out a connection in time: the 503 answers recognise it by its cause. */
async function acquire(pool: pg.Pool, name: string): Promise<pg.PoolClient> {
  try {
    return await pool.connect();
  } catch (err) {
    // The cause says why (the logger prints it after this message).
    throw new Error(`no connection from the ${name} pool (${pool.totalCount} open, ${pool.waitingCount} waiting)`, { cause: err });
  }
}

const COUNTS_ROWS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/** One checkout of a pool connection; released exactly once, with an error when it cannot be trusted. */
class Checkout implements DatabaseConnection {
  private released = false;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly pool: string,
  ) {}

  get isReleased(): boolean {
    return this.released;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const result = await waitingOn(`${this.pool}: ${query.sql}`, this.client.query<R & pg.QueryResultRow>(query.sql, query.parameters as unknown[]));
    return { rows: result.rows ?? [], numAffectedRows: COUNTS_ROWS.has(result.command) ? BigInt(result.rowCount ?? 0) : undefined };
  }

  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streamed queries are not used');
  }

  /** With an error the pool destroys the connection rather than hand it out again. */
  release(err?: Error): void {
    if (this.released) return;
    this.released = true;
    this.client.release(err);
  }
}

/**
 * A Kysely driver over a node-postgres pool, like Kysely's own except that a connection which
 * fails `begin`, `commit` or `rollback` is destroyed at once. Kysely's transactions (which MikroORM's `transactional` uses)
 * release their connection only after a successful commit or rollback: when the database dies
 * under a transaction, the rollback fails too and the connection stayed checked out for ever,
 * until every connection of the pool was such a ghost and each request waited for one without end.
 */
class HealingDriver implements Driver {
  constructor(
    private readonly pool: pg.Pool,
    private readonly name: string,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new Checkout(await waitingOn(`a connection from the ${this.name} pool`, acquire(this.pool, this.name)), this.name);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const mode = [settings.isolationLevel && `isolation level ${settings.isolationLevel}`, settings.accessMode].filter(Boolean).join(' ');
    await this.control(connection, mode ? `start transaction ${mode}` : 'begin');
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.control(connection, 'commit');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // Not getting through is no failure: PostgreSQL rolls back the transaction of a connection that ends.
    if ((connection as Checkout).isReleased) return;
    await this.control(connection, 'rollback').catch(() => undefined);
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${pg.escapeIdentifier(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint ${pg.escapeIdentifier(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint ${pg.escapeIdentifier(name)}`));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as Checkout).release();
  }

  async destroy(): Promise<void> {
    await this.pool.end();
  }

  /** A transaction statement that failed leaves the connection in a state nobody knows: destroyed, whatever Kysely does next. */
  private async control(connection: DatabaseConnection, statement: string): Promise<void> {
    const checkout = connection as Checkout;
    try {
      await checkout.executeQuery(CompiledQuery.raw(statement));
    } catch (err) {
      checkout.release(err as Error);
      throw err;
    }
  }
}

/** The PostgreSQL dialect MikroORM gets for each pool (orm.ts): Kysely's, with the driver above. */
export class HealingPostgresDialect extends PostgresDialect {
  constructor(
    private readonly pool: pg.Pool,
    private readonly name: string,
  ) {
    super({ pool });
  }

  override createDriver(): Driver {
    return new HealingDriver(this.pool, this.name);
  }
}

/** Whether the pool gives out a connection that answers, within `ms` (readiness). */
export function poolServes(pool: pg.Pool, ms: number): Promise<boolean> {
  return settlesWithin(pool.query('select 1'), ms).catch(() => false);
}
