import { buildFederatedSchema } from '../../platform/graphql/build-federated-schema.js';
import type { SubgraphDefinition, SubgraphDeps } from '../../platform/subgraph.js';
import { CUSTOM_EVENT_EVENTS } from './custom-event.events.js';
import { eventAcceptance } from './custom-event.acceptance.js';
import { createCustomEventQueues, startCustomEventWorkers } from './custom-event.job.js';
import { CustomEventResolver, customEventReferences } from './custom-event.resolver.js';
import { CustomEventService } from './custom-event.service.js';
import { CustomerResolver, customerReferences } from './customer.resolver.js';
import { CustomerService } from './customer.service.js';
import { Migration20261122000300_customers } from './migrations/Migration20261122000300_customers.js';
import { Migration20261122000310_custom_events } from './migrations/Migration20261122000310_custom_events.js';
import { SegmentResolver } from './segment.resolver.js';
import { SegmentService } from './segment.service.js';
import { WebhookResolver, type WebhookReads } from './webhook.resolver.js';

/** The events subgraph also serves webhook subscriptions to dashboards, read through the webhooks module the runtime gives it. */
export type EventsSubgraphDeps = SubgraphDeps & { webhooks?: WebhookReads };

/** One set of services per process (the schema and the workers share them). */
const servicesByDeps = new WeakMap<SubgraphDeps, ReturnType<typeof createServices>>();

function createServices(deps: SubgraphDeps) {
  return {
    customers: new CustomerService(deps.orm),
    events: new CustomEventService(deps.orm, deps.boss),
    segments: new SegmentService(deps.orm),
    acceptance: eventAcceptance(deps).acceptance,
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

const RESOLVERS = [CustomerResolver, CustomEventResolver, SegmentResolver, WebhookResolver] as const;

export const eventsSubgraph: SubgraphDefinition = {
  name: 'events',
  publishes: CUSTOM_EVENT_EVENTS,
  db: {
    name: 'events',
    schema: 'events',
    migrations: [
      { name: 'Migration20261122000300_customers', class: Migration20261122000300_customers },
      { name: 'Migration20261122000310_custom_events', class: Migration20261122000310_custom_events },
    ],
  },
  async build(deps?: SubgraphDeps) {
    if (!deps) return buildFederatedSchema({ resolvers: [...RESOLVERS] });
    const { customers, events, segments, acceptance } = services(deps);
    return buildFederatedSchema({
      resolvers: [...RESOLVERS],
      instances: [
        new CustomerResolver({ customers, events, accounts: deps.accounts }),
        new CustomEventResolver({ events, customers, acceptance, accounts: deps.accounts, boss: deps.boss }),
        new SegmentResolver({ segments, accounts: deps.accounts }),
        new WebhookResolver({ webhooks: (deps as EventsSubgraphDeps).webhooks, accounts: deps.accounts }),
      ],
      references: { ...customerReferences(customers), ...customEventReferences(events) },
    });
  },
  createQueues: createCustomEventQueues,
  async startWorkers(deps: SubgraphDeps) {
    await startCustomEventWorkers(deps.boss, services(deps).events, deps.logger, { batchSize: deps.config.eventsBatchSize, concurrency: deps.config.eventsWorkerConcurrency });
  },
};
