import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PgBoss } from 'pg-boss';

/**
 * Under `npm run test:pg-boss-upgrade`, the queue tests really run on the version installed for
 * it: the `pg-boss` the project imports is the one in PG_BOSS_UPGRADE_DIR.
 */
describe.runIf(process.env.PG_BOSS_UPGRADE_DIR)('the pg-boss the project runs on', () => {
  it('is the version under test', async () => {
    const root = join(process.env.PG_BOSS_UPGRADE_DIR!, 'node_modules', 'pg-boss');
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string; main: string };
    expect(pkg.version).toBe(process.env.PG_BOSS_UPGRADE_VERSION);
    const loaded = (await import(pathToFileURL(join(root, pkg.main)).href)) as { PgBoss: unknown };
    expect(loaded.PgBoss).toBe(PgBoss);
  });
});
