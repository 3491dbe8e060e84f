import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** Where the cluster tests run theirs: their own ports and directory, away from a developer's `npm run ha -- up`. */
export const TEST_PORT_BASE = Number(process.env.HA_TEST_PORT_BASE ?? 25500);
export const TEST_DIR = join(tmpdir(), `returns-ha-test-${TEST_PORT_BASE}`);

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns something other than undefined/null/false; a throw counts as "not yet". */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 30_000, intervalMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== null && value !== false) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() >= deadline) throw new Error(`gave up after ${timeoutMs} ms waiting for ${what}${last instanceof Error ? ` (last error: ${last.message})` : ''}`);
    await sleep(intervalMs);
  }
}

/** One statement on a fresh connection, with hard time limits (a frozen server must not hang a test). */
export async function query<R extends pg.QueryResultRow = Record<string, unknown>>(url: string, sql: string, params: unknown[] = [], timeoutMs = 5_000): Promise<R[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await Promise.race([client.end().catch(() => {}), sleep(500)]);
  }
}

/** `node scripts/ha/cli.ts ...` on the test cluster, the way `npm run ha -- ...` runs it. */
export function cli(args: string[], timeoutMs = 280_000): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['scripts/ha/cli.ts', ...args],
      { env: { ...process.env, HA_PORT_BASE: String(TEST_PORT_BASE), HA_DIR: TEST_DIR }, timeout: timeoutMs },
      (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The SQLSTATE or errno of a failed statement, or `ok` when it succeeded. */
export async function outcome(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'ok';
  } catch (err) {
    const e = err as { code?: string; message?: string };
    return e.code ?? e.message ?? String(err);
  }
}
