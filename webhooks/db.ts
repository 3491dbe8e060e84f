import type { DbModule } from '../platform/db/orm.js';
import { Migration20261210000100_webhooks } from './migrations/Migration20261210000100_webhooks.js';
import { Migration20261227000000_message_trace } from './migrations/Migration20261227000000_message_trace.js';

/** The `webhooks` schema: its own pool and migrations, like each subgraph's. */
export const webhooksDbModule: DbModule = {
  name: 'webhooks',
  schema: 'webhooks',
  migrations: [
    { name: 'Migration20261210000100_webhooks', class: Migration20261210000100_webhooks },
    { name: 'Migration20261227000000_message_trace', class: Migration20261227000000_message_trace },
  ],
};
