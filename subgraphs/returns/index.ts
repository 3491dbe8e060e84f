import { PeerGraph } from '../../platform/graphql/peer-graphs.js';
import { defineModule, type ModuleDeps } from '../../platform/module.js';
import { Migration20261122000100_returns } from './migrations/Migration20261122000100_returns.js';
import { Migration20261122001000_returns_domain } from './migrations/Migration20261122001000_returns_domain.js';
import { Migration20261124000100_idempotency_claims } from './migrations/Migration20261124000100_idempotency_claims.js';
import { Migration20261201000100_return_numbers_and_windows } from './migrations/Migration20261201000100_return_numbers_and_windows.js';
import { Migration20261203000100_v22_client_shapes } from './migrations/Migration20261203000100_v22_client_shapes.js';
import { Migration20261203000300_product_facts } from './migrations/Migration20261203000300_product_facts.js';
import { Migration20261203000400_item_restock } from './migrations/Migration20261203000400_item_restock.js';
import { Migration20261215000100_erased_marker } from './migrations/Migration20261215000100_erased_marker.js';
import { ReturnsPrivacy } from './customer.privacy.js';
import { Migration20261220000100_return_stats } from './migrations/Migration20261220000100_return_stats.js';
import { Migration20261229000100_orders_api } from './migrations/Migration20261229000100_orders_api.js';
import { Migration20261229000200_return_tags } from './migrations/Migration20261229000200_return_tags.js';
import { Migration20261229000300_return_import } from './migrations/Migration20261229000300_return_import.js';
import { Migration20270120000200_return_order_stat } from './migrations/Migration20270120000200_return_order_stat.js';
import { Migration20270125000100_return_stats_by_customer } from './migrations/Migration20270125000100_return_stats_by_customer.js';
import { Migration20261229000400_return_stat_insert } from './migrations/Migration20261229000400_return_stat_insert.js';
import { createProductFactsQueue, PRODUCT_FACTS_CONSUMER, startProductFactsWorker } from './product-facts.job.js';
import { createCompletionQueue, startCompletionWorker } from './return-completion.job.js';
import { createReturnStatsQueue, startReturnStatsWorker } from './return-stats.job.js';
// Resolver modules in this order: type-graphql lists a type's fields in the order its decorators ran (schema/*.graphql).
import { ReturnItemResolver, ReturnPageResolver, ReturnResolver } from './return.resolver.js';
import { CompatResolver, ReturnWindowPageResolver } from './compat.resolver.js';
import { OrderResolver } from './order.resolver.js';
import { StoreSettingsResolver } from './store-settings.resolver.js';
import { CustomerReturnsResolver } from './customer.resolver.js';
import { ReturnStatsResolver } from './return-stats.resolver.js';
import { CustomerReference } from './customer.type.js';
import { CustomerExportResolver } from './customer-export.resolver.js';
import { FulfillmentResolver, OrderFulfillmentResolver, OrderItemFulfillmentResolver, ReturnItemFulfillmentResolver } from './fulfillment.resolver.js';
import { ReturnTagResolver, ReturnTaggingResolver } from './return-tag.resolver.js';
import { ReturnImportResolver } from './return-import.resolver.js';
import { CustomerExportReference } from './customer-export.type.js';
import { OrderReads } from './order.rows.js';
import { OrderViews } from './order.view.js';
import { OrderService } from './order.service.js';
import { FulfillmentReads } from './fulfillment.rows.js';
import { FulfillmentService } from './fulfillment.service.js';
import { ORDER_EVENTS, OrderEvents, orderDocumentsPage } from './order.events.js';
import { ReturnTagReads } from './return-tag.rows.js';
import { ReturnTagService } from './return-tag.service.js';
import { ReturnImport } from './return-import.service.js';
import { returnReferences } from './return.reference.js';
import { ReturnChanges } from './return-changes.service.js';
import { ReturnCreation } from './return-creation.service.js';
import { ReturnEvents, RETURN_EVENTS } from './return.events.js';
import { ReturnReads } from './return.rows.js';
import { ReturnViews } from './return.view.js';
import { ReturnStatsReads } from './return-stats.rows.js';
import { returnDocumentsPage } from './return.backfill.js';
import { StoreSettingsService } from './store-settings.service.js';

const resolvers = [
  ReturnResolver,
  ReturnPageResolver,
  ReturnItemResolver,
  CompatResolver,
  ReturnWindowPageResolver,
  OrderResolver,
  StoreSettingsResolver,
  CustomerReturnsResolver,
  CustomerExportResolver,
  ReturnStatsResolver,
  FulfillmentResolver,
  OrderFulfillmentResolver,
  OrderItemFulfillmentResolver,
  ReturnItemFulfillmentResolver,
  ReturnTagResolver,
  ReturnTaggingResolver,
  ReturnImportResolver,
] as const;

/** The subgraph's services, made once per process from what the runtime gives it. */
function services(deps: ModuleDeps) {
  const orderReads = new OrderReads(deps.orm);
  const fulfillmentReads = new FulfillmentReads(deps.orm);
  const orderEvents = new OrderEvents(new OrderViews(orderReads), fulfillmentReads);
  const orders = new OrderService(deps.orm, orderEvents);
  const fulfillments = new FulfillmentService(deps.orm, fulfillmentReads, orderEvents);
  const settings = new StoreSettingsService(deps.orm);
  const reads = new ReturnReads(deps.orm);
  const events = new ReturnEvents(reads, settings);
  const creation = new ReturnCreation(deps.orm, reads, events, settings);
  const changes = new ReturnChanges(deps.orm, deps.boss, reads, events);
  const tagReads = new ReturnTagReads(deps.orm);
  const tags = new ReturnTagService(deps.orm, tagReads, new ReturnViews(reads), events);
  const imports = new ReturnImport(deps.orm, settings, tags, events);
  // The events subgraph's graph: segments are evaluated there (returnStats' segment filter).
  const eventsGraph = new PeerGraph('events', () => deps.contributions.graphs.events, deps.config.subgraphUrls.events, deps.config.requestTimeoutMs);
  return { deps, reads, orderReads, creation, changes, orders, settings, accounts: deps.accounts, fulfillmentReads, fulfillments, orderEvents, tagReads, tags, imports, events: eventsGraph };
}

export const returnsSubgraph = defineModule({
  name: 'returns',
  publishes: [...RETURN_EVENTS, ...ORDER_EVENTS],
  consumes: [PRODUCT_FACTS_CONSUMER],
  db: {
    name: 'returns',
    schema: 'returns',
    migrations: [
      { name: 'Migration20261122000100_returns', class: Migration20261122000100_returns },
      { name: 'Migration20261122001000_returns_domain', class: Migration20261122001000_returns_domain },
      { name: 'Migration20261124000100_idempotency_claims', class: Migration20261124000100_idempotency_claims },
      { name: 'Migration20261201000100_return_numbers_and_windows', class: Migration20261201000100_return_numbers_and_windows },
      { name: 'Migration20261203000100_v22_client_shapes', class: Migration20261203000100_v22_client_shapes },
      { name: 'Migration20261203000300_product_facts', class: Migration20261203000300_product_facts },
      { name: 'Migration20261203000400_item_restock', class: Migration20261203000400_item_restock },
      { name: 'Migration20261215000100_erased_marker', class: Migration20261215000100_erased_marker },
      { name: 'Migration20261220000100_return_stats', class: Migration20261220000100_return_stats },
      { name: 'Migration20261229000100_orders_api', class: Migration20261229000100_orders_api },
      { name: 'Migration20261229000200_return_tags', class: Migration20261229000200_return_tags },
      { name: 'Migration20261229000300_return_import', class: Migration20261229000300_return_import },
      { name: 'Migration20261229000400_return_stat_insert', class: Migration20261229000400_return_stat_insert },
      { name: 'Migration20270120000200_return_order_stat', class: Migration20270120000200_return_order_stat },
      { name: 'Migration20270125000100_return_stats_by_customer', class: Migration20270125000100_return_stats_by_customer },
    ],
  },
  async queues(boss) {
    await createCompletionQueue(boss);
    await createProductFactsQueue(boss);
    await createReturnStatsQueue(boss);
  },
  services,
  graph: {
    graph: 'returns',
    resolvers: [...resolvers],
    orphanedTypes: [CustomerReference, CustomerExportReference],
    instances: (s) => [
      new ReturnResolver(s),
      new ReturnPageResolver(s),
      new ReturnItemResolver(),
      new CompatResolver(s),
      new ReturnWindowPageResolver(),
      new OrderResolver(s),
      new StoreSettingsResolver(s),
      new CustomerReturnsResolver(s),
      new CustomerExportResolver(s),
      new ReturnStatsResolver({ accounts: s.accounts, stats: new ReturnStatsReads(s.deps.heavyReads), events: s.events }),
      new FulfillmentResolver(s),
      new OrderFulfillmentResolver(s),
      new OrderItemFulfillmentResolver(s),
      new ReturnItemFulfillmentResolver(s),
      new ReturnTagResolver(s),
      new ReturnTaggingResolver(s),
      new ReturnImportResolver(s),
    ],
    references: (s) => returnReferences(s),
  },
  async workers({ deps, changes }) {
    await startCompletionWorker(deps, changes);
    await startReturnStatsWorker(deps);
    return startProductFactsWorker(deps);
  },
  privacy: ({ deps }) => [new ReturnsPrivacy(deps.orm).participants()],
  subjects: ({ deps, orderEvents }) => ({
    return: (storeId, after, limit) => returnDocumentsPage(deps.orm, storeId, after, limit),
    order: (storeId, after, limit) => orderDocumentsPage(deps.orm.em.fork(), orderEvents, storeId, after, limit),
  }),
});
