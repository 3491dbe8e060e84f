/**
 * The one way tests wait for something asynchronous (a job, a process, a
 * restart): poll `check` until it returns a value other than `undefined`,
 * `null` or `false`, and return that value. A check that throws counts as "not
 * yet" (a server still starting refuses connections); if time runs out, the
 * error names what was awaited and the last error seen.
 */
export interface PollOptions {
  /** Default 30 s: generous for a loaded CI machine; a passing test never waits for it. */
  timeoutMs?: number;
  intervalMs?: number;
}

export async function eventually<T>(check: () => Promise<T | undefined | null | false>, what: string, { timeoutMs = 30_000, intervalMs = 50 }: PollOptions = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== null && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
  throw new Error(`gave up after ${timeoutMs} ms waiting for ${what}${cause}`);
}
