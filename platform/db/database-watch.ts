import pg from 'pg';
import type { Logger } from '../observability/logger.js';

export interface DatabaseWatchOptions {
  url: string;
  logger: Logger;
  /** The embedded server: start it again when it died (WAL recovery). True when it runs. */
  restart?: () => Promise<boolean>;
  /** Called once when the database stayed unreachable this long (0: never). */
  lostAfterMs: number;
  onLost(): void;
  /** The database answers again after being away since `downSince`. */
  onRecovered?(downSince: Date): void;
  intervalMs?: number;
}

/**
 * Keeps one connection of its own to the database and a probe on it, so the
 * process knows at once when the database goes away (the connection breaks)
 * and when it is back, without waiting for a request to fail. While it is
 * away: `/readyz` says not ready, API calls answer 503, the embedded server is
 * started again, and past `lostAfterMs` the process is told to give up (a
 * supervisor restarts it). The pools need nothing: they destroy the
 * connections that broke, in use or idle, and open new ones on the next use
 * (pool.ts).
 */
/** How long probes may only time out before the database counts as away (a loaded machine answers late). */
const SLOW_PROBES_GRACE_MS = 10_000;

/** node-postgres' connect and query timeouts ("Connection terminated due to connection timeout", "Query read timeout"). */
function isTimeout(err: unknown): boolean {
  return err instanceof Error && /timeout/i.test(err.message);
}

export class DatabaseWatch {
  private client: pg.Client | undefined;
  private downSince: number | undefined;
  private lostReported = false;
  private timer: NodeJS.Timeout | undefined;
  private probing: Promise<void> | undefined;
  private stopped = false;
  /** Since when probes have only timed out, with no answer in between (undefined: the last one answered). */
  private slowSince: number | undefined;

  constructor(private readonly options: DatabaseWatchOptions) {}

  /** False from the moment the connection broke until a probe succeeds again. */
  get available(): boolean {
    return this.downSince === undefined;
  }

  start(): void {
    const tick = () => {
      this.probing = this.probe().finally(() => {
        this.probing = undefined;
        if (!this.stopped) this.timer = setTimeout(tick, this.options.intervalMs ?? 250);
      });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.probing;
    await this.drop();
  }

  private async drop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private markDown(err: unknown): void {
    if (this.stopped) return;
    if (this.downSince === undefined) {
      this.downSince = Date.now();
      this.options.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'database unreachable: not ready, answering 503 until it is back');
    }
  }

  private async probe(): Promise<void> {
    try {
      if (!this.client) {
        const client = new pg.Client({ connectionString: this.options.url, connectionTimeoutMillis: 2_000, query_timeout: 2_000 });
        // A broken connection is the first sign of a crashed server: say so now, not at the next probe.
        client.on('error', (err) => {
          this.markDown(err);
          if (this.client === client) this.client = undefined;
        });
        await client.connect();
        this.client = client;
      }
      // Reachable is not enough behind a proxy during a failover: a node still (or already again) in
      // recovery takes no write, so the database counts as away until a primary answers.
      const { rows } = await this.client.query<{ standby: boolean }>('select pg_is_in_recovery() as standby');
      this.slowSince = undefined;
      if (rows[0]?.standby) throw new Error('the database answers read-only (a standby, not the primary)');
      if (this.downSince !== undefined) {
        const downSince = new Date(this.downSince);
        this.options.logger.info({ downMs: Date.now() - this.downSince }, 'database reachable again: ready');
        this.downSince = undefined;
        this.lostReported = false;
        this.options.onRecovered?.(downSince);
      }
    } catch (err) {
      await this.drop();
      // A probe that only timed out is a busy machine or a stalled event loop as often as a lost
      // server: the service keeps answering until probes have timed out for SLOW_PROBES_GRACE_MS in a
      // row (the pools' own acquire and statement timeouts bound each request meanwhile). A refused
      // or broken connection, what a crashed server gives, says "away" at once.
      if (this.downSince === undefined && isTimeout(err)) {
        this.slowSince ??= Date.now();
        if (Date.now() - this.slowSince < SLOW_PROBES_GRACE_MS) return;
      }
      this.markDown(err);
      if (this.stopped) return;
      if (this.options.restart) await this.options.restart();
      const downMs = Date.now() - (this.downSince ?? Date.now());
      if (this.options.lostAfterMs > 0 && downMs >= this.options.lostAfterMs && !this.lostReported) {
        this.lostReported = true;
        this.options.onLost();
      }
    }
  }
}
