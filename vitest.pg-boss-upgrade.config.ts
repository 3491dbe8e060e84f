import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/**
 * The queue tests against another pg-boss version (`npm run test:pg-boss-upgrade`, which installs
 * that version in a scratch directory and names it in PG_BOSS_UPGRADE_DIR): every import of
 * `pg-boss` by the project's code resolves there instead of to the installed version.
 */
const dir = process.env.PG_BOSS_UPGRADE_DIR;
if (!dir) throw new Error('PG_BOSS_UPGRADE_DIR is not set: run npm run test:pg-boss-upgrade');

export default defineConfig({
  ...base,
  resolve: { alias: [...(base.resolve?.alias as { find: RegExp; replacement: string }[]), { find: /^pg-boss$/, replacement: join(dir, 'node_modules', 'pg-boss') }] },
  test: {
    ...base.test,
    // The adapter to pg-boss's tables, queue policies, and the work that runs through pg-boss's API.
    include: [
      'test/queue-tables.test.ts',
      'test/pg-boss-version.test.ts',
      'test/queues.test.ts',
      'test/outbox.test.ts',
      'test/events-recovery.test.ts',
      'test/flows-exactly-once.test.ts',
      'test/privacy-export.test.ts',
      'test/privacy-retention.test.ts',
      'test/webhooks-delivery.test.ts',
    ],
    exclude: ['node_modules/**'],
  },
});
