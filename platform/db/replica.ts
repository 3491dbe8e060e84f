import pg from 'pg';
import type { DatabaseTimeouts } from '../config.js';
import { isDatabaseUnavailable } from '../errors.js';
import { metrics } from '../observability/metrics.js';
import type { Logger } from '../observability/logger.js';
import { sql, type Orm } from './orm.js';
import { connectionConfig } from './pool.js';

/**
 * Where the reads that tolerate seconds of lag go (decisions section 19: the `*Stats` queries, the
 * dashboard's, exports' scans): a read replica when one is configured, answers and is close enough
 * behind; the primary otherwise. Everything else (a client reading what it just wrote, every
 * transaction) stays on the primary.
 */
export interface HeavyReads {
  run<T>(read: (orm: Orm) => Promise<T>): Promise<T>;
}

/** Heavy reads on the primary: no replica configured. */
export function onPrimary(orm: Orm): HeavyReads {
  return { run: (read) => read(orm) };
}

// Labelled so that a process without a replica exports no sample (the family stays, for dashboards).
const lagGauge = metrics.gauge('database_replica_lag_seconds', 'How far the read replica (DATABASE_REPLICA_URL) is behind the primary, as last measured (0 when it has replayed everything it received).', ['replica']);
const usableGauge = metrics.gauge('database_replica_usable', 'Whether heavy reads go to the read replica now (1), or to the primary because it is away or lags more than REPLICA_MAX_LAG_SECONDS (0).', ['replica']);
const REPLICA = { replica: 'DATABASE_REPLICA_URL' };

/**
 * Watches the replica on a connection of its own, once a second: how far behind it is (the age of
 * the last transaction it replayed; 0 when it has replayed all it received, since an idle primary
 * sends nothing to replay) and whether it answers. One per process, shared by every module.
 */
export class ReplicaWatch {
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private probing: Promise<void> | undefined;
  private stopped = false;
  /** Lag in seconds at the last probe; undefined while it does not answer. */
  lagSeconds: number | undefined;

  constructor(
    readonly url: string,
    private readonly maxLagSeconds: number,
    private readonly timeouts: DatabaseTimeouts,
    private readonly logger: Logger,
    private readonly intervalMs = 1_000,
  ) {}

  /** Whether heavy reads may go to the replica now. */
  get usable(): boolean {
    return this.lagSeconds !== undefined && this.lagSeconds <= this.maxLagSeconds;
  }

  async start(): Promise<void> {
    await this.probe();
    const tick = () => {
      this.probing = this.probe().finally(() => {
        this.probing = undefined;
        if (!this.stopped) this.timer = setTimeout(tick, this.intervalMs);
      });
    };
    this.timer = setTimeout(tick, this.intervalMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.probing;
    await this.client?.end().catch(() => undefined);
    this.client = undefined;
  }

  private async probe(): Promise<void> {
    const wasUsable = this.usable;
    try {
      if (!this.client) {
        const client = new pg.Client({ ...connectionConfig(this.url, 'returns-platform-replica-watch', this.timeouts), query_timeout: 2_000 });
        client.on('error', () => {
          if (this.client === client) this.client = undefined;
        });
        await client.connect();
        this.client = client;
      }
      const { rows } = await this.client.query<{ lag: number }>(
        `select case when not pg_is_in_recovery() or pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() then 0
                     else coalesce(extract(epoch from now() - pg_last_xact_replay_timestamp()), 0) end::float8 as lag`,
      );
      this.lagSeconds = Math.max(0, rows[0]!.lag);
    } catch (err) {
      this.lagSeconds = undefined;
      const client = this.client;
      this.client = undefined;
      await client?.end().catch(() => undefined);
      if (wasUsable) this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'read replica unreachable: heavy reads go to the primary');
    }
    lagGauge.set(REPLICA, this.lagSeconds ?? 0);
    usableGauge.set(REPLICA, this.usable ? 1 : 0);
    if (wasUsable && !this.usable && this.lagSeconds !== undefined) this.logger.warn({ lagSeconds: this.lagSeconds, max: this.maxLagSeconds }, 'read replica lags too far behind: heavy reads go to the primary');
    if (!wasUsable && this.usable) this.logger.info({ lagSeconds: this.lagSeconds }, 'read replica usable: heavy reads go to it');
  }
}

/**
 * A replica cancels a long query that conflicts with what it replays (SQLSTATE 40001, "conflict
 * with recovery") when `hot_standby_feedback` is off; the read is then run on the primary.
 */
function isRecoveryConflict(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '40001';
}

/** Heavy reads of one module: on its replica pool while the watch says so, falling back to its primary pool. */
export class ReplicaReads implements HeavyReads {
  private replica: Promise<Orm> | undefined;

  constructor(
    private readonly primary: Orm,
    /** Opens the module's pool on the replica, on first use. */
    private readonly openReplica: () => Promise<Orm>,
    private readonly watch: ReplicaWatch,
    private readonly logger: Logger,
  ) {}

  async run<T>(read: (orm: Orm) => Promise<T>): Promise<T> {
    if (this.watch.usable) {
      try {
        return await read(await this.replicaOrm());
      } catch (err) {
        if (!isDatabaseUnavailable(err) && !isRecoveryConflict(err)) throw err;
        this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'read on the replica failed: running it on the primary');
      }
    }
    return read(this.primary);
  }

  /** The replica pool, if it was opened (closed with the process's other pools). */
  async opened(): Promise<Orm | undefined> {
    return this.replica?.catch(() => undefined);
  }

  private replicaOrm(): Promise<Orm> {
    return (this.replica ??= this.openReplica().catch((err: unknown) => {
      this.replica = undefined;
      throw err;
    }));
  }
}

/** One heavy read's SQL (`sql` of orm.ts), on the replica or the primary as `reads` decides. */
export function heavySql<T = Record<string, unknown>>(reads: HeavyReads, text: string, params: readonly unknown[] = []): Promise<T[]> {
  return reads.run((orm) => sql<T>(orm.em.fork(), text, params));
}
