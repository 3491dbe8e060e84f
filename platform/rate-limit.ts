import { AppError } from './errors.js';

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
