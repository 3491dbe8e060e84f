import type { DbModule } from '../db/orm.js';
import { Migration20261122000000_accounts } from './migrations/Migration20261122000000_accounts.js';
import { Migration20261201000000_rate_windows } from './migrations/Migration20261201000000_rate_windows.js';
import { Migration20261210000000_outbox_sequence } from './migrations/Migration20261210000000_outbox_sequence.js';

export const platformDbModule: DbModule = {
  name: 'platform',
  schema: 'platform',
  migrations: [
    { name: 'Migration20261122000000_accounts', class: Migration20261122000000_accounts },
    { name: 'Migration20261201000000_rate_windows', class: Migration20261201000000_rate_windows },
    { name: 'Migration20261210000000_outbox_sequence', class: Migration20261210000000_outbox_sequence },
  ],
};
