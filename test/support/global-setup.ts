import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../platform/db/embedded-postgres.js';
import { createLogger } from '../../platform/logger.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

/**
 * One PostgreSQL for the whole run: `TEST_DATABASE_URL` when given, else an
 * embedded throwaway server (fsync off). Each test file creates its own
 * database on it (see test/support/app.ts).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (process.env.TEST_DATABASE_URL) {
    project.provide('databaseUrl', process.env.TEST_DATABASE_URL);
    return async () => {};
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'returns-platform-test-'));
  const server = await startEmbeddedPostgres({ dataDir, logger: createLogger('warn'), durable: false });
  project.provide('databaseUrl', server.url);
  return async () => {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
}
