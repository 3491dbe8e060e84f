import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:browser`: the pages a person opens (API reference, GraphQL
 * explorer) in a real headless Chromium (Debian's `chromium` package, driven by
 * playwright-core). Kept out of `npm test`, which needs only Node and npm.
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/browser/**/*.test.ts'],
    exclude: ['node_modules/**'],
    testTimeout: 120_000,
    // One browser at a time: Chromium is heavy on two cores.
    fileParallelism: false,
  },
});
