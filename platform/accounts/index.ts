import type { DbModule } from '../db/orm.js';
import { Account, ApiSecret, CompatKey, PlatformSetting, Store } from './account.entity.js';
import { Migration20261122000000_accounts } from './migrations/Migration20261122000000_accounts.js';

export const platformDbModule: DbModule = {
  name: 'platform',
  schema: 'platform',
  entities: [Account, Store, ApiSecret, CompatKey, PlatformSetting],
  migrations: [{ name: 'Migration20261122000000_accounts', class: Migration20261122000000_accounts }],
};
