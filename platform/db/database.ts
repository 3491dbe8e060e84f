import type { Config } from '../config.js';
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
