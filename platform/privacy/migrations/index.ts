import type { DbModule } from '../../db/orm.js';
import { Migration20261215000000_privacy } from './Migration20261215000000_privacy.js';

/** The privacy tables of the platform schema (erasure requests and their ledger, retention settings). */
export const PRIVACY_MIGRATIONS: DbModule['migrations'] = [{ name: 'Migration20261215000000_privacy', class: Migration20261215000000_privacy }];
