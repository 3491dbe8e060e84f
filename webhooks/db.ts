import type { DbModule } from '../platform/db/orm.js';
import { Migration20261210000100_webhooks } from './migrations/Migration20261210000100_webhooks.js';

/** The `webhooks` schema: its own pool and migrations, like each subgraph's. */
export const webhooksDbModule: DbModule = {
  name: 'webhooks',
  schema: 'webhooks',
  migrations: [{ name: 'Migration20261210000100_webhooks', class: Migration20261210000100_webhooks }],
};
