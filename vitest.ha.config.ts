import { defineConfig } from 'vitest/config';

/**
 * `npm run test:ha`: the high-availability cluster tooling (scripts/ha) against
 * a real three-node Patroni cluster with etcd and HAProxy (Debian packages,
 * installed on first use). Kept out of `npm test`: it needs apt and a few
 * minutes, and one cluster at a time.
 */
export default defineConfig({
  cacheDir: 'node_modules/.vitest-cache',
  resolve: {
    // One copy of graphql, as in vitest.config.ts (the service-level failover tests will load it).
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/ha/**/*.test.ts'],
    // The built service (the failover suite starts it as processes) and a throwaway PostgreSQL, as for npm test.
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/setup.ts'],
    exclude: ['node_modules/**'],
    pool: 'forks',
    // One file at a time: every file drives processes and fixed ports of its own.
    fileParallelism: false,
    maxWorkers: 1,
    // Failovers wait for Patroni's ttl (20 s), freezes for longer.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    teardownTimeout: 60_000,
  },
});
