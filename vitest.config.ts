import { defineConfig } from 'vitest/config';

export default defineConfig({
  cacheDir: 'node_modules/.vitest-cache',
  resolve: {
    // One copy of graphql: type-graphql, Apollo and the tests must share the same realm.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Browser tests need Chromium: `npm run test:browser` (vitest.browser.config.ts).
    exclude: ['test/browser/**', 'test/ha/**', 'node_modules/**'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/setup.ts'],
    pool: 'forks',
    // Three files at once even on two cores: much of a test's time is spent waiting on child processes,
    // PostgreSQL and timers, and one file at a time left the run at nine minutes.
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
  },
});
