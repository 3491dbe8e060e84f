import { sql, type DbModule, type Orm } from '../db/orm.js';
import { AppError } from '../errors.js';
import type { Logger } from '../observability/logger.js';
import { Migration20261201000000_rate_windows } from './migrations/Migration20261201000000_rate_windows.js';

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the current window ends. */
  resetSeconds: number;
}

/**
 * Fixed-window counter kept in this process's memory. Used for the generous
 * per-secret limit of ordinary routes, where per-process accuracy is enough;
 * limits that must hold across processes keep their counters in PostgreSQL.
 */
export class MemoryRateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private lastSweep = 0;

  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  consume(key: string, now = Date.now()): RateLimitDecision {
    const start = now - (now % this.windowMs);
    if (now - this.lastSweep > this.windowMs) this.sweep(start, now);
    let window = this.windows.get(key);
    if (!window || window.start !== start) {
      window = { start, count: 0 };
      this.windows.set(key, window);
    }
    window.count++;
    return {
      allowed: window.count <= this.limit,
      limit: this.limit,
      remaining: Math.max(0, this.limit - window.count),
      resetSeconds: Math.max(1, Math.ceil((start + this.windowMs - now) / 1000)),
    };
  }

  private sweep(currentStart: number, now: number): void {
    this.lastSweep = now;
    for (const [key, window] of this.windows) if (window.start !== currentStart) this.windows.delete(key);
  }
}

/** The shared limiter's table (`platform.rate_window`), in the platform schema (platform/schema.ts). */
export const RATE_LIMIT_MIGRATIONS: DbModule['migrations'] = [{ name: 'Migration20261201000000_rate_windows', class: Migration20261201000000_rate_windows }];

/**
 * Fixed-window counter kept in PostgreSQL (`platform.rate_window`), for
 * limits that must hold across every process of the service. The requests a
 * process receives in one event-loop turn are counted together, in one
 * statement: an upsert per key on the database clock that returns the new
 * total, from which each request learns its own rank. Concurrent requests of
 * one key would otherwise queue on its counter row one statement at a time.
 * The statement commits without waiting for the disk (as the event counters
 * do): a commit waiting for the WAL flush would hold the counter rows locked
 * that much longer; a crash can lose the last moment's counts, which only
 * lets a few more requests through.
 */
export class SharedRateLimiter {
  private pending = new Map<string, { resolve: (d: RateLimitDecision) => void; reject: (err: unknown) => void }[]>();
  private scheduled = false;
  private lastSweep = 0;

  constructor(
    private readonly orm: Orm,
    readonly limit: number,
    readonly windowSeconds: number,
    private readonly logger?: Logger,
  ) {}

  consume(key: string): Promise<RateLimitDecision> {
    return new Promise((resolve, reject) => {
      let waiting = this.pending.get(key);
      if (!waiting) this.pending.set(key, (waiting = []));
      waiting.push({ resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    this.scheduled = false;
    // A stable order, so two processes' batches lock the same counters in the same order.
    const keys = [...batch.keys()].sort();
    try {
      const rows = await sql<{ key: string; count: number; resetSeconds: number }>(
        this.orm.em.fork(),
        `with no_flush_wait as (select set_config('synchronous_commit', 'off', true)),
              now as (select extract(epoch from clock_timestamp()) as s)
         insert into rate_window as w (key, window_start, window_end, count)
           select k, floor(now.s / $3)::bigint * $3, (floor(now.s / $3)::bigint + 1) * $3, n from unnest($1::text[], $2::int[]) as t(k, n), now, no_flush_wait
           on conflict (key, window_start) do update set count = w.count + excluded.count
           returning key, count, ceil(window_end - (select s from now))::int as "resetSeconds"`,
        [keys, keys.map((k) => batch.get(k)!.length), this.windowSeconds],
      );
      for (const row of rows) {
        const waiting = batch.get(row.key)!;
        const before = row.count - waiting.length;
        waiting.forEach((w, i) => {
          const count = before + i + 1;
          w.resolve({ allowed: count <= this.limit, limit: this.limit, remaining: Math.max(0, this.limit - count), resetSeconds: Math.max(1, row.resetSeconds) });
        });
      }
    } catch (err) {
      for (const waiting of batch.values()) for (const w of waiting) w.reject(err);
    }
    this.sweep();
  }

  /** Windows that ended are useless; drop them now and then, off the request's path. */
  private sweep(): void {
    const now = Date.now();
    if (now - this.lastSweep < this.windowSeconds * 1000) return;
    this.lastSweep = now;
    sql(this.orm.em.fork(), 'delete from rate_window where window_end < extract(epoch from clock_timestamp())').catch((err: unknown) =>
      this.logger?.warn({ err }, 'rate window sweep failed'),
    );
  }
}

/** IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers): the policy and what is left of it. */
export function rateLimitHeaders(policy: string, decision: RateLimitDecision, windowSeconds: number): Record<string, string> {
  return {
    'RateLimit-Policy': `"${policy}";q=${decision.limit};w=${windowSeconds}`,
    RateLimit: `"${policy}";r=${decision.remaining};t=${decision.resetSeconds}`,
  };
}

export function rateLimited(policy: string, decision: RateLimitDecision, windowSeconds: number): AppError {
  return new AppError('rate_limited', 'rate-limited', `Too many requests; retry in ${decision.resetSeconds} s.`, {
    headers: { 'Retry-After': String(decision.resetSeconds), ...rateLimitHeaders(policy, decision, windowSeconds) },
  });
}
