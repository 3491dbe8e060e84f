import type { DbModule } from '../db/orm.js';
import { Migration20261122000000_accounts } from './migrations/Migration20261122000000_accounts.js';
import { Migration20261201000000_rate_windows } from './migrations/Migration20261201000000_rate_windows.js';

export const platformDbModule: DbModule = {
  name: 'platform',
  schema: 'platform',
  migrations: [
    { name: 'Migration20261122000000_accounts', class: Migration20261122000000_accounts },
    { name: 'Migration20261201000000_rate_windows', class: Migration20261201000000_rate_windows },
  ],
};
