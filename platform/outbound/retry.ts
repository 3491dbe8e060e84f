/** A bad `Retry-After` (a year, say) cannot park a delivery for longer than this. */
const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

/**
 * The pause before the next attempt of an outbound send (webhook deliveries and flow steps share it),
 * after `failedAttempts` attempts (1-based) failed: the schedule's entry in seconds plus up to 10 %
 * jitter (so receivers that failed together are not retried together), or longer when the receiver's
 * `Retry-After` asks for it. Undefined once the schedule is spent.
 */
export function retryDelayMs(schedule: readonly number[], failedAttempts: number, retryAfterMs?: number): number | undefined {
  if (failedAttempts < 1 || failedAttempts > schedule.length) return undefined;
  const base = schedule[failedAttempts - 1]! * 1000;
  const jittered = base + Math.random() * base * 0.1;
  return Math.max(jittered, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
}
