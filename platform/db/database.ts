import type { Config } from '../config.js';
import { isDatabaseUnavailable } from '../errors.js';
import type { Logger } from '../observability/logger.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres.js';

export interface Database {
  url: string;
  /** The embedded server under DATA_DIR; undefined with `DATABASE_URL`. */
  embedded?: EmbeddedPostgres;
  /** The embedded server: stops it when no other process uses it. A no-op with `DATABASE_URL`. */
  stop(): Promise<void>;
}

/**
 * `DATABASE_URL` when set. Otherwise the embedded server under `DATA_DIR`:
 * the one already running there (another of our processes, e.g. a second
 * `npm start` or the admin CLI beside the first), or a new one.
 */
export async function openDatabase(config: Config, logger: Logger): Promise<Database> {
  if (config.databaseUrl) return { url: config.databaseUrl, stop: async () => {} };
  const embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, logger, durable: true });
  return { url: embedded.url, embedded, stop: () => embedded.stop() };
}

/**
 * Runs a start-up step, waiting for the database while it cannot be reached (a cluster failing
 * over, a database that starts after the service): tried again with a growing pause (up to 5 s)
 * until it succeeds, fails for another reason, or the database stayed away for `timeoutMs`
 * (`DATABASE_LOST_EXIT_MS`; 0: wait for ever). The step must be safe to run again.
 */
export async function untilAvailable<T>(what: string, step: () => Promise<T>, logger: Logger, timeoutMs: number): Promise<T> {
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      return await step();
    } catch (err) {
      if (!isDatabaseUnavailable(err) || (timeoutMs > 0 && Date.now() - started >= timeoutMs)) throw err;
      const pauseMs = Math.min(5_000, 250 * 2 ** attempt);
      logger.warn({ err: err instanceof Error ? err.message : String(err), step: what, retryInMs: pauseMs }, 'database unavailable at start: waiting for it');
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
}
