import { buildFederatedSchema } from '../../platform/graphql/build-federated-schema.js';
import type { SubgraphDefinition, SubgraphDeps } from '../../platform/subgraph.js';
import { CustomerEntity } from './customer.entity.js';
import { CustomerResolver, customerReferences } from './customer.resolver.js';
import { CustomerService } from './customer.service.js';
import { Migration20261122000300_customers } from './migrations/Migration20261122000300_customers.js';

export const eventsSubgraph: SubgraphDefinition = {
  name: 'events',
  db: {
    name: 'events',
    schema: 'events',
    entities: [CustomerEntity],
    migrations: [{ name: 'Migration20261122000300_customers', class: Migration20261122000300_customers }],
  },
  async build(deps?: SubgraphDeps) {
    if (!deps) return buildFederatedSchema({ resolvers: [CustomerResolver] });
    const customers = new CustomerService(deps.orm);
    return buildFederatedSchema({
      resolvers: [CustomerResolver],
      instances: [new CustomerResolver({ customers, accounts: deps.accounts })],
      references: customerReferences(customers),
    });
  },
};
