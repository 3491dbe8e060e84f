import type { DbModule } from '../db/orm.js';
import { Migration20261122000000_accounts } from './migrations/Migration20261122000000_accounts.js';

/** Accounts, stores, credentials and the shared settings, in the platform schema (platform/schema.ts). */
export const ACCOUNTS_MIGRATIONS: DbModule['migrations'] = [{ name: 'Migration20261122000000_accounts', class: Migration20261122000000_accounts }];
