import { buildFederatedSchema } from '../../platform/graphql/build-federated-schema.js';
import type { SubgraphDefinition, SubgraphDeps } from '../../platform/subgraph.js';
import { CUSTOM_EVENT_EVENTS } from './custom-event.events.js';
import { eventAcceptance } from './event-acceptance.service.js';
import { createCustomEventQueues, startCustomEventWorkers, stopCustomEventWorkers } from './custom-event.job.js';
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
import { EventStatsResolver } from './event-stats.resolver.js';
import { EventStatsReads } from './event-stats.rows.js';
import { FlowStatsResolver } from './flows/flow-stats.resolver.js';
import { openSecretBox, type SecretBox } from '../../platform/secret-box.js';
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

/** One set of services per process (the schema and the workers share them). */
const servicesByDeps = new WeakMap<SubgraphDeps, ReturnType<typeof createServices>>();

function createServices(deps: SubgraphDeps) {
  const customers = new CustomerService(deps.orm);
  const suppressions = new CustomerSuppressions(deps.orm, deps.accounts);
  const events = new CustomEventService(deps.orm, deps.boss, suppressions);
  const templates = new TemplateService(deps.orm, new TemplateEngine({ renderTimeMs: deps.config.templateRenderTimeoutMs, maxOutputBytes: deps.config.templateMaxOutputBytes }));
  // Flow signing secrets and webhook step tokens are sealed like subscriptions' (the same box and key),
  // read (or made) once per process, on first use.
  let box: Promise<SecretBox> | undefined;
  const openBox = () =>
    (box ??= openSecretBox(deps.accounts).catch((err: unknown) => {
      box = undefined; // a failed read is retried by the next caller
      throw err;
    }));
  const flows = new FlowService(deps.orm, {
    templates,
    box: openBox,
    checkUrl: (url) => checkCallbackUrl(url, deps.config.webhookAllowedHosts),
    generateSigningSecret,
  });
  const runner = new FlowRunner({ ...deps, events, customers, templates, providers: messageProviders(deps.config), box: openBox });
  return {
    customers,
    events,
    segments: new SegmentService(deps.orm),
    acceptance: eventAcceptance(deps).acceptance,
    templates,
    flows,
    runner,
    suppressions,
  };
}

function services(deps: SubgraphDeps) {
  let s = servicesByDeps.get(deps);
  if (!s) {
    s = createServices(deps);
    servicesByDeps.set(deps, s);
  }
  return s;
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
] as const;

export const eventsSubgraph: SubgraphDefinition = {
  name: 'events',
  publishes: CUSTOM_EVENT_EVENTS,
  consumes: [FLOW_TRIGGERS_CONSUMER],
  db: {
    name: 'events',
    schema: 'events',
    migrations: [
      { name: 'Migration20261122000300_customers', class: Migration20261122000300_customers },
      { name: 'Migration20261122000310_custom_events', class: Migration20261122000310_custom_events },
      { name: 'Migration20261125000400_flows', class: Migration20261125000400_flows },
      { name: 'Migration20261215000300_privacy', class: Migration20261215000300_privacy },
      { name: 'Migration20261220000200_event_stats', class: Migration20261220000200_event_stats },
    ],
  },
  async build(deps?: SubgraphDeps) {
    if (!deps) return buildFederatedSchema({ resolvers: [...RESOLVERS] });
    const { customers, events, segments, acceptance, templates, flows } = services(deps);
    return buildFederatedSchema({
      resolvers: [...RESOLVERS],
      instances: [
        new CustomerResolver({ customers, events, accounts: deps.accounts }),
        new CustomEventResolver({ events, customers, acceptance, accounts: deps.accounts, boss: deps.boss }),
        new SegmentResolver({ segments, accounts: deps.accounts }),
        new TemplateResolver({ templates, events, customers, accounts: deps.accounts }),
        new FlowResolver({ flows, customers, accounts: deps.accounts }),
        new FlowRunResolver({ flows, customers, accounts: deps.accounts }),
        new CustomerFlowsResolver({ flows, customers, accounts: deps.accounts }),
        new MessageResolver(),
        new CustomerExportResolver({ customers, events, flows, accounts: deps.accounts }),
        new EventStatsResolver({ stats: new EventStatsReads(deps.orm), accounts: deps.accounts }),
        new FlowStatsResolver({ orm: deps.orm, accounts: deps.accounts }),
      ],
      references: { ...customerReferences(customers), ...customEventReferences(events) },
    });
  },
  async createQueues(boss) {
    await createCustomEventQueues(boss);
    await createFlowQueues(boss);
  },
  async startWorkers(deps: SubgraphDeps) {
    const { events, runner } = services(deps);
    await startCustomEventWorkers(deps, events, { batchSize: deps.config.eventsBatchSize, concurrency: deps.config.eventsWorkerConcurrency });
    const stopFlows = await startFlowWorkers(deps.orm, deps.boss, runner, deps.logger);
    return async () => {
      // Every processing worker of the process, those started later (a test's, a benchmark's) included.
      await stopCustomEventWorkers(deps.boss);
      await stopFlows();
    };
  },
  privacy: (deps: SubgraphDeps) => new EventsPrivacy(deps.orm, services(deps).suppressions).participants(),
};
