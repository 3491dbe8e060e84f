import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';

export interface Database {
  url: string;
  /** Stops the embedded server when this process owns it; a no-op otherwise. */
  stop(): Promise<void>;
}

/**
 * `DATABASE_URL` when set. Otherwise the embedded server under `DATA_DIR`:
 * the one already running there (started by another of our processes, e.g.
 * when the admin CLI runs beside `npm start`), or a new one owned by this process.
 */
export async function openDatabase(config: Config, logger: Logger): Promise<Database> {
  if (config.databaseUrl) return { url: config.databaseUrl, stop: async () => {} };
  const server = await startEmbeddedPostgres({ dataDir: config.dataDir, logger, durable: true });
  return { url: server.url, stop: () => server.stop() };
}
