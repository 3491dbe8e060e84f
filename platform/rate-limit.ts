import { sql, type Orm } from './db/orm.js';
import { AppError } from './errors.js';
import type { Logger } from './logger.js';

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

/**
 * Fixed-window counter kept in PostgreSQL (`platform.rate_window`), for
 * limits that must hold across every process of the service. One statement
 * per request: an upsert of the (key, window) row on the database clock that
 * returns the new count. It commits without waiting for the disk (as the
 * event counters do): a counter row stays locked until its transaction
 * commits, and a commit waiting for the WAL flush would queue every
 * concurrent request of the same key behind it; a crash can lose the last
 * moment's counts, which only lets a few more requests through.
 */
export class SharedRateLimiter {
  private lastSweep = 0;

  constructor(
    private readonly orm: Orm,
    readonly limit: number,
    readonly windowSeconds: number,
    private readonly logger?: Logger,
  ) {}

  async consume(key: string): Promise<RateLimitDecision> {
    const [row] = await sql<{ count: number; resetSeconds: number }>(
      this.orm.em.fork(),
      `with no_flush_wait as (select set_config('synchronous_commit', 'off', true)),
            now as (select extract(epoch from clock_timestamp()) as s)
       insert into rate_window as w (key, window_start, window_end, count)
         select $1, floor(now.s / $2)::bigint * $2, (floor(now.s / $2)::bigint + 1) * $2, 1 from now, no_flush_wait
         on conflict (key, window_start) do update set count = w.count + 1
         returning count, ceil(window_end - (select s from now))::int as "resetSeconds"`,
      [key, this.windowSeconds],
    );
    this.sweep();
    const count = row!.count;
    return { allowed: count <= this.limit, limit: this.limit, remaining: Math.max(0, this.limit - count), resetSeconds: Math.max(1, row!.resetSeconds) };
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
