import { AccountResolver } from '../../platform/accounts/account.resolver.js';
import { buildFederatedSchema } from '../../platform/graphql/build-federated-schema.js';
import type { SubgraphDefinition, SubgraphDeps } from '../../platform/subgraph.js';
import { Migration20261122000100_returns } from './migrations/Migration20261122000100_returns.js';
import { Migration20261122001000_returns_domain } from './migrations/Migration20261122001000_returns_domain.js';
import { OrderEntity, OrderLineItemEntity } from './order.entity.js';
import { OrderService } from './order.service.js';
import { ReturnCommentEntity, ReturnEntity, ReturnItemEntity, StoreSettingsEntity } from './return.entity.js';
import { returnReferences } from './return.reference.js';
import { CustomerReturnsResolver, OrderResolver, ReturnItemResolver, ReturnPageResolver, ReturnResolver, StoreSettingsResolver } from './return.resolver.js';
import { ReturnService } from './return.service.js';
import { CustomerReference } from './return.type.js';
import { StoreSettingsService } from './store-settings.service.js';

const resolvers = [ReturnResolver, ReturnPageResolver, ReturnItemResolver, OrderResolver, StoreSettingsResolver, CustomerReturnsResolver, AccountResolver] as const;
const orphanedTypes = [CustomerReference];

export const returnsSubgraph: SubgraphDefinition = {
  name: 'returns',
  db: {
    name: 'returns',
    schema: 'returns',
    entities: [OrderEntity, OrderLineItemEntity, ReturnEntity, ReturnItemEntity, ReturnCommentEntity, StoreSettingsEntity],
    migrations: [
      { name: 'Migration20261122000100_returns', class: Migration20261122000100_returns },
      { name: 'Migration20261122001000_returns_domain', class: Migration20261122001000_returns_domain },
    ],
  },
  async build(deps?: SubgraphDeps) {
    if (!deps) return buildFederatedSchema({ resolvers: [...resolvers], orphanedTypes });
    const orders = new OrderService(deps.orm);
    const settings = new StoreSettingsService(deps.orm);
    const returns = new ReturnService(deps.orm, deps.boss, settings);
    const resolverDeps = { returns, orders, settings, accounts: deps.accounts };
    return buildFederatedSchema({
      resolvers: [...resolvers],
      orphanedTypes,
      instances: [
        new ReturnResolver(resolverDeps),
        new ReturnPageResolver(resolverDeps),
        new ReturnItemResolver(),
        new OrderResolver(resolverDeps),
        new StoreSettingsResolver(resolverDeps),
        new CustomerReturnsResolver(resolverDeps),
        new AccountResolver(deps.accounts),
      ],
      references: returnReferences(resolverDeps),
    });
  },
};
