import type { SubgraphName } from '../platform/config.js';
import type { ModuleDefinition } from '../platform/module.js';
import { PRIVACY_EVENTS } from '../platform/privacy/privacy.events.js';
import { eventsSubgraph } from './events/index.js';
import { inventorySubgraph } from './inventory/index.js';
import { returnsSubgraph } from './returns/index.js';

export const SUBGRAPHS: Record<SubgraphName, ModuleDefinition> = {
  returns: returnsSubgraph,
  inventory: inventorySubgraph,
  events: eventsSubgraph,
};

/** Every outbox event the service publishes: the subgraphs', and the platform's `customer.erased` (webhook delivery subscribes to all of them). */
export const PUBLISHED_EVENTS = [...Object.values(SUBGRAPHS).flatMap((s) => s.publishes ?? []), ...PRIVACY_EVENTS];
