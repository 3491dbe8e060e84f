import pg from 'pg';
import type { DatabaseTimeouts } from '../../platform/config.js';
import { connectionConfig } from '../../platform/db/pool.js';
import type { Logger } from '../../platform/observability/logger.js';

/** Custom events are processed in lanes: a store's events are all in one (a hash of its id). */
export const EVENT_LANES = 64;

// Advisory lock namespaces (the first key of two): one lock per lane, one per worker process.
const LANE_LOCKS = 2_028_001;
const WORKER_LOCKS = 2_028_002;

/**
 * The lanes this process works, held as session advisory locks on a connection of their own: a
 * lane is held by one process at a time, and the lanes of a process that dies are free as soon as
 * its connection closes. Each process holds a fair share (the lanes over the live worker processes,
 * counted by a lock each holds) and rebalances every second: a process joining takes its share as
 * the others give theirs up.
 *
 * Order does not rest on the locks alone: a claim waits for the jobs another transaction holds
 * (job-claims.ts), so while a lane changes hands its next claim waits for the jobs in flight.
 * A lane is given up only when no claim of this process is running with it.
 */
export class EventLanes {
  private client: pg.Client | undefined;
  private readonly held = new Set<number>();
  private readonly leaving = new Set<number>();
  private claims = 0;
  private timer: NodeJS.Timeout | undefined;
  private rebalancing: Promise<void> | undefined;

  constructor(
    private readonly databaseUrl: string,
    private readonly timeouts: DatabaseTimeouts,
    private readonly logger: Logger,
    private readonly everyMs = 1_000,
  ) {}

  async start(): Promise<void> {
    await this.rebalance();
    this.timer = setInterval(() => void this.rebalance(), this.everyMs);
  }

  /** Releases every lane (closing the connection releases its locks). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.rebalancing;
    const client = this.client;
    this.client = undefined;
    this.held.clear();
    await client?.end().catch(() => undefined);
  }

  /**
   * The lanes a claim may take jobs from (null: all of them, no filter), until `endClaim`. Empty
   * when this process holds none.
   */
  beginClaim(): number[] | null {
    this.claims++;
    return this.held.size === EVENT_LANES ? null : [...this.held];
  }

  endClaim(): void {
    this.claims--;
    if (!this.claims && this.leaving.size) void this.rebalance();
  }

  private rebalance(): Promise<void> {
    this.rebalancing ??= this.balance()
      .catch((err: unknown) => {
        this.logger.warn({ err }, 'event lanes: rebalancing failed; reconnecting');
        this.drop();
      })
      .finally(() => (this.rebalancing = undefined));
    return this.rebalancing;
  }

  private async balance(): Promise<void> {
    const client = this.client ?? (await this.connect());
    if (this.leaving.size && !this.claims) {
      const lanes = [...this.leaving];
      this.leaving.clear();
      await client.query('select pg_advisory_unlock($1, l) from unnest($2::int[]) l', [LANE_LOCKS, lanes]);
    }
    const { rows } = await client.query<{ n: number }>(
      `select count(*)::int as n from pg_locks where locktype = 'advisory' and granted and objsubid = 2 and classid = $1::int::oid
          and database = (select oid from pg_database where datname = current_database())`,
      [WORKER_LOCKS],
    );
    const share = Math.ceil(EVENT_LANES / Math.max(1, rows[0]!.n));
    if (this.held.size > share) {
      // Stop claiming from the extra lanes now; unlock them once no claim of this process runs with them.
      for (const lane of [...this.held].slice(share)) {
        this.held.delete(lane);
        this.leaving.add(lane);
      }
      if (!this.claims) await this.balance();
      return;
    }
    if (this.held.size < share) {
      const free = shuffle(Array.from({ length: EVENT_LANES }, (_, i) => i).filter((l) => !this.held.has(l) && !this.leaving.has(l)));
      // Stops at the share: a lane is locked only when its row is read.
      const taken = await client.query<{ l: number }>('select l from unnest($2::int[]) l where pg_try_advisory_lock($1, l) limit $3', [LANE_LOCKS, free, share - this.held.size]);
      for (const { l } of taken.rows) this.held.add(l);
    }
  }

  private async connect(): Promise<pg.Client> {
    // Keepalive: a connection whose server vanished is found, so the process stops claiming lanes it no longer holds.
    const client = new pg.Client(connectionConfig(this.databaseUrl, 'returns-platform-event-lanes', this.timeouts));
    client.on('error', (err) => {
      this.logger.warn({ err }, 'event lanes: connection lost');
      this.drop();
    });
    await client.connect();
    // Counted as a live worker while this connection lives (a random key, another if taken).
    while (!(await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1, $2) as ok', [WORKER_LOCKS, Math.floor(Math.random() * 2 ** 31)])).rows[0]!.ok);
    this.client = client;
    return client;
  }

  /** The connection is gone, and its locks with it: claim nothing until the next rebalance takes lanes again. */
  private drop(): void {
    const client = this.client;
    this.client = undefined;
    this.held.clear();
    this.leaving.clear();
    void client?.end().catch(() => undefined);
  }
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
