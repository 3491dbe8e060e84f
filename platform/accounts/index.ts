import type { DbModule } from '../db/orm.js';
import { Migration20261122000000_accounts } from './migrations/Migration20261122000000_accounts.js';
import { Migration20261220000000_store_time_zone } from './migrations/Migration20261220000000_store_time_zone.js';
import { Migration20261229000000_v22_scopes } from './migrations/Migration20261229000000_v22_scopes.js';
import { Migration20270105000000_account_contact } from './migrations/Migration20270105000000_account_contact.js';

/** Accounts, stores, credentials and the shared settings, in the platform schema (platform/schema.ts). */
export const ACCOUNTS_MIGRATIONS: DbModule['migrations'] = [
  { name: 'Migration20261122000000_accounts', class: Migration20261122000000_accounts },
  { name: 'Migration20261220000000_store_time_zone', class: Migration20261220000000_store_time_zone },
  { name: 'Migration20261229000000_v22_scopes', class: Migration20261229000000_v22_scopes },
  { name: 'Migration20270105000000_account_contact', class: Migration20270105000000_account_contact },
];
