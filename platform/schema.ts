import { ACCOUNTS_MIGRATIONS } from './accounts/index.js';
import type { DbModule } from './db/orm.js';
import { OUTBOX_MIGRATIONS } from './jobs/outbox.js';
import { PRIVACY_MIGRATIONS } from './privacy/migrations/index.js';
import { RATE_LIMIT_MIGRATIONS } from './api/rate-limit.js';

/**
 * The `platform` schema: the tables every part shares. Each concern lists its own migrations; they
 * run in the order of their names, the order in which existing databases recorded them.
 */
export const platformDbModule: DbModule = {
  name: 'platform',
  schema: 'platform',
  migrations: [...ACCOUNTS_MIGRATIONS, ...RATE_LIMIT_MIGRATIONS, ...OUTBOX_MIGRATIONS, ...PRIVACY_MIGRATIONS].sort((a, b) => (a.name < b.name ? -1 : 1)),
};
