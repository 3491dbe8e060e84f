import { AccountResolver } from '../../platform/accounts/account.resolver.js';
import { buildFederatedSchema } from '../../platform/graphql/build-federated-schema.js';
import type { SubgraphDefinition, SubgraphDeps } from '../../platform/subgraph.js';
import { Migration20261122000100_returns } from './migrations/Migration20261122000100_returns.js';
import { OrderEntity } from './order.entity.js';
import { ReturnEntity } from './return.entity.js';
import { returnReferences } from './return.reference.js';
import { CustomerReturnsResolver, OrderResolver, ReturnResolver } from './return.resolver.js';
import { ReturnService } from './return.service.js';
import { CustomerReference } from './return.type.js';

export const returnsSubgraph: SubgraphDefinition = {
  name: 'returns',
  db: {
    name: 'returns',
    schema: 'returns',
    entities: [OrderEntity, ReturnEntity],
    migrations: [{ name: 'Migration20261122000100_returns', class: Migration20261122000100_returns }],
  },
  async build(deps?: SubgraphDeps) {
    const resolvers = [ReturnResolver, OrderResolver, CustomerReturnsResolver, AccountResolver] as const;
    const orphanedTypes = [CustomerReference];
    if (!deps) return buildFederatedSchema({ resolvers: [...resolvers], orphanedTypes });
    const service = new ReturnService(deps.orm);
    const resolverDeps = { service, accounts: deps.accounts };
    return buildFederatedSchema({
      resolvers: [...resolvers],
      orphanedTypes,
      instances: [new ReturnResolver(resolverDeps), new OrderResolver(resolverDeps), new CustomerReturnsResolver(resolverDeps), new AccountResolver(deps.accounts)],
      references: returnReferences(service),
    });
  },
};
