import { defineModule, type ModuleDeps } from '../../platform/module.js';
import { CUSTOM_EVENT_EVENTS } from './custom-event.events.js';
import { eventAcceptance } from './event-acceptance.service.js';
import { createCustomEventQueues, startCustomEventWorkers, startTransfer, stopCustomEventWorkers } from './custom-event.job.js';
import { EventInbox } from './event-inbox.service.js';
import { createPartitionQueue, startPartitionMaintenance } from './custom-event-partitions.job.js';
import { createEventStatDaysQueue, EventStatDays, startEventStatDaysWorker } from './event-stats.job.js';
import { inboxErasure } from './event-inbox.privacy.js';
import { CustomEventResolver, customEventReferences } from './custom-event.resolver.js';
import { CustomEventService } from './custom-event.service.js';
import { CustomerResolver, customerReferences } from './customers/customer.resolver.js';
import { CustomerService } from './customers/customer.service.js';
import { Migration20261122000300_customers } from './migrations/Migration20261122000300_customers.js';
import { Migration20261122000310_custom_events } from './migrations/Migration20261122000310_custom_events.js';
import { SegmentResolver } from './segments/segment.resolver.js';
import { SegmentService } from './segments/segment.service.js';
import { Migration20261125000400_flows } from './migrations/Migration20261125000400_flows.js';
import { Migration20261220000200_event_stats } from './migrations/Migration20261220000200_event_stats.js';
import { Migration20261231000100_event_inbox } from './migrations/Migration20261231000100_event_inbox.js';
import { Migration20261231000200_custom_event_partitions } from './migrations/Migration20261231000200_custom_event_partitions.js';
import { Migration20261231000300_event_stat_days } from './migrations/Migration20261231000300_event_stat_days.js';
import { Migration20261231000500_consent } from './migrations/Migration20261231000500_consent.js';
import { Migration20261231000600_merged_identifiers } from './migrations/Migration20261231000600_merged_identifiers.js';
import { ConsentService } from './customers/consent.service.js';
import { ConsentChangeResolver, ConsentExportResolver, CustomerConsentResolver } from './customers/consent.resolver.js';
import { CustomerMerges } from './customers/customer-merge.service.js';
import { MessagingSettingsService } from './flows/messaging-settings.service.js';
import { MessagingSettingsResolver } from './flows/messaging-settings.resolver.js';
import { messagingEndpoints } from './customers/consent-endpoints.service.js';
import { Migration20261229000500_storefront_identity } from './migrations/Migration20261229000500_storefront_identity.js';
import { CustomerProfileResolver } from './customers/customer-profile.resolver.js';
import { CustomerUpserts } from './customers/customer-upsert.service.js';
import { StorefrontEvents } from './storefront-event.service.js';
import { StorefrontEventResolver } from './storefront-event.resolver.js';
import { storefrontPrivacy } from './storefront-event.privacy.js';
import { EventStatsResolver } from './event-stats.resolver.js';
import { EventStatsReads } from './event-stats.rows.js';
import { FlowStatsResolver } from './flows/flow-stats.resolver.js';
import { TemplateEngine } from './templates/template-engine.service.js';
import { TemplateResolver } from './templates/template.resolver.js';
import { TemplateService } from './templates/template.service.js';
import { createFlowQueues, startFlowWorkers } from './flows/flow.job.js';
import { FLOW_TRIGGERS_CONSUMER } from './flows/flow.consumer.js';
import { messageProviders } from './flows/message-provider.service.js';
import { CustomerFlowsResolver, FlowResolver, FlowRunResolver, MessageResolver } from './flows/flow.resolver.js';
import { CustomerExportResolver } from './customers/customer-export.resolver.js';
import { FlowRunner } from './flows/flow-run.service.js';
import { FlowService } from './flows/flow.service.js';
import { checkCallbackUrl, generateSigningSecret } from '../../platform/outbound/index.js';
import { CustomerSuppressions } from './customers/customer-suppression.service.js';
import { Migration20261215000300_privacy } from './migrations/Migration20261215000300_privacy.js';
import { EventsPrivacy } from './customers/customer.privacy.js';
import { Migration20270110000700_customer_returns } from './migrations/Migration20270110000700_customer_returns.js';
import { createCustomerReturnsQueue, CUSTOMER_RETURNS_CONSUMER, startCustomerReturnsConsumer } from './segments/customer-returns.consumer.js';
import { customerReturnsPrivacy } from './segments/customer-returns.privacy.js';
import { createCustomerReturnsBackfillQueue, startCustomerReturnsBackfill } from './segments/customer-returns-backfill.job.js';
import { Migration20270120000100_customer_returns_backfill } from './migrations/Migration20270120000100_customer_returns_backfill.js';
import { CustomerTimelineResolver } from './timeline/timeline.resolver.js';
import { TimelineReads } from './timeline/timeline.view.js';
import { deadLetterQueue, RETRIES } from '../../platform/jobs/queue.js';
import { queueErasure } from '../../platform/privacy/queue.privacy.js';
import { CUSTOM_EVENTS_QUEUE } from './event-ingestion.service.js';

/** The subgraph's services, made once per process (the schema, the workers and the REST facade share them). */
function services(deps: ModuleDeps) {
  const customers = new CustomerService(deps.orm);
  const suppressions = new CustomerSuppressions(deps.orm, deps.accounts);
  const events = new CustomEventService(deps.orm, suppressions, deps.heavyReads);
  const inbox = new EventInbox(deps.orm, deps.boss, { ...RETRIES.events, retryLimit: deps.config.eventsRetryLimit, retryDelay: deps.config.eventsRetryDelaySeconds });
  const templates = new TemplateService(deps.orm, new TemplateEngine({ renderTimeMs: deps.config.templateRenderTimeoutMs, maxOutputBytes: deps.config.templateMaxOutputBytes }));
  // Flow signing secrets and webhook step tokens are sealed like subscriptions' (the same box and key).
  const flows = new FlowService(deps.orm, {
    templates,
    box: deps.secrets,
    checkUrl: (url) => checkCallbackUrl(url, deps.config.webhookAllowedHosts),
    generateSigningSecret,
  });
  const consent = new ConsentService(deps.orm, { accounts: deps.accounts, suppressions, inbox });
  const settings = new MessagingSettingsService(deps.orm);
  const runner = new FlowRunner({ ...deps, events, customers, templates, providers: messageProviders(deps.config), box: deps.secrets, consent, settings });
  const acceptance = eventAcceptance(deps, inbox, suppressions);
  return {
    deps,
    customers,
    events,
    segments: new SegmentService(deps.orm),
    inbox,
    acceptance,
    // Storefront events go through the same acceptance as custom events.
    storefront: new StorefrontEvents(deps.orm, acceptance, deps.config.eventsRateLimitPerSecond),
    templates,
    flows,
    runner,
    suppressions,
    consent,
    settings,
    merges: new CustomerMerges(deps.orm),
    messaging: messagingEndpoints(consent, deps.accounts),
    upserts: new CustomerUpserts(deps.orm, suppressions),
  };
}

const RESOLVERS = [
  CustomerResolver,
  CustomEventResolver,
  SegmentResolver,
  TemplateResolver,
  FlowResolver,
  FlowRunResolver,
  CustomerFlowsResolver,
  MessageResolver,
  CustomerExportResolver,
  EventStatsResolver,
  FlowStatsResolver,
  CustomerProfileResolver,
  StorefrontEventResolver,
  CustomerConsentResolver,
  ConsentExportResolver,
  ConsentChangeResolver,
  MessagingSettingsResolver,
  CustomerTimelineResolver,
] as const;

export const eventsSubgraph = defineModule({
  name: 'events',
  publishes: CUSTOM_EVENT_EVENTS,
  consumes: [FLOW_TRIGGERS_CONSUMER, CUSTOMER_RETURNS_CONSUMER],
  // The facade accepts custom events itself (the acceptance path, no GraphQL hop).
  servesFacade: true,
  db: {
    name: 'events',
    schema: 'events',
    migrations: [
      { name: 'Migration20261122000300_customers', class: Migration20261122000300_customers },
      { name: 'Migration20261122000310_custom_events', class: Migration20261122000310_custom_events },
      { name: 'Migration20261125000400_flows', class: Migration20261125000400_flows },
      { name: 'Migration20261215000300_privacy', class: Migration20261215000300_privacy },
      { name: 'Migration20261220000200_event_stats', class: Migration20261220000200_event_stats },
      { name: 'Migration20261229000500_storefront_identity', class: Migration20261229000500_storefront_identity },
      { name: 'Migration20261231000100_event_inbox', class: Migration20261231000100_event_inbox },
      { name: 'Migration20261231000200_custom_event_partitions', class: Migration20261231000200_custom_event_partitions },
      { name: 'Migration20261231000300_event_stat_days', class: Migration20261231000300_event_stat_days },
      { name: 'Migration20261231000500_consent', class: Migration20261231000500_consent },
      { name: 'Migration20261231000600_merged_identifiers', class: Migration20261231000600_merged_identifiers },
      { name: 'Migration20270110000700_customer_returns', class: Migration20270110000700_customer_returns },
      { name: 'Migration20270120000100_customer_returns_backfill', class: Migration20270120000100_customer_returns_backfill },
    ],
  },
  async queues(boss) {
    await createCustomEventQueues(boss);
    await createPartitionQueue(boss);
    await createEventStatDaysQueue(boss);
    await createFlowQueues(boss);
    await createCustomerReturnsQueue(boss);
    await createCustomerReturnsBackfillQueue(boss);
  },
  services,
  graph: {
    graph: 'events',
    resolvers: [...RESOLVERS],
    instances: ({ deps, customers, events, segments, acceptance, templates, flows, upserts, storefront, consent, settings, merges }) => [
      new CustomerResolver({ customers, events, accounts: deps.accounts }),
      new CustomEventResolver({ events, customers, acceptance, accounts: deps.accounts, boss: deps.boss }),
      new SegmentResolver({ segments, accounts: deps.accounts }),
      new TemplateResolver({ templates, events, customers, accounts: deps.accounts }),
      new FlowResolver({ flows, customers, accounts: deps.accounts }),
      new FlowRunResolver({ flows, customers, accounts: deps.accounts }),
      new CustomerFlowsResolver({ flows, customers, accounts: deps.accounts }),
      new MessageResolver(),
      new CustomerExportResolver({ customers, events, flows, accounts: deps.accounts }),
      new EventStatsResolver({ stats: new EventStatsReads(deps.heavyReads), days: new EventStatDays(deps.orm, deps.boss), accounts: deps.accounts }),
      new FlowStatsResolver({ reads: deps.heavyReads, accounts: deps.accounts }),
      new CustomerProfileResolver({ upserts, accounts: deps.accounts }),
      new StorefrontEventResolver({ storefront, accounts: deps.accounts }),
      new CustomerConsentResolver({ consent, merges, customers, accounts: deps.accounts }),
      new ConsentExportResolver({ consent }),
      new ConsentChangeResolver(),
      new MessagingSettingsResolver({ settings, consent, accounts: deps.accounts, publicUrl: deps.config.publicUrl }),
      new CustomerTimelineResolver({ timeline: new TimelineReads(deps.orm, events) }),
    ],
    references: ({ customers, events }) => ({ ...customerReferences(customers), ...customEventReferences(events) }),
  },
  async workers({ deps, events, inbox, runner }) {
    await startCustomEventWorkers(deps, events, inbox, { batchSize: deps.config.eventsBatchSize, concurrency: deps.config.eventsWorkerConcurrency });
    await startTransfer(deps, inbox);
    await startPartitionMaintenance(deps.orm, deps.boss, deps.logger);
    await startEventStatDaysWorker(deps.orm, deps.boss, deps.logger);
    const stopFlows = await startFlowWorkers(deps.orm, deps.boss, runner, deps.logger);
    const stopCustomerReturns = await startCustomerReturnsConsumer(deps.orm, deps.boss, deps.logger, inbox);
    await startCustomerReturnsBackfill(deps.orm, deps.boss, deps.accounts, deps.contributions, deps.logger);
    return async () => {
      await stopCustomerReturns();
      // Every processing worker of the process, those started later (a test's, a benchmark's) included.
      await stopCustomEventWorkers(deps.boss);
      await stopFlows();
    };
  },
  privacy: ({ deps, suppressions }) => [
    new EventsPrivacy(deps.orm, suppressions).participants(),
    storefrontPrivacy(deps.orm),
    customerReturnsPrivacy(deps.orm),
    // Accepted events wait in the inbox until processed, and dead letters keep them: their copies of the person go too.
    { erasure: inboxErasure(deps.orm) },
    { erasure: queueErasure(deps.orm, [CUSTOM_EVENTS_QUEUE, deadLetterQueue(CUSTOM_EVENTS_QUEUE)]) },
  ],
});
