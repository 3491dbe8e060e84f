import type { DbModule } from '../db/orm.js';
import { Migration20261122000000_accounts } from './migrations/Migration20261122000000_accounts.js';

export const platformDbModule: DbModule = {
  name: 'platform',
  schema: 'platform',
  migrations: [{ name: 'Migration20261122000000_accounts', class: Migration20261122000000_accounts }],
};
