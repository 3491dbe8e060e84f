import type { ModuleDefinition } from '../platform/module.js';
import { platformModule } from '../platform/platform.module.js';
import { privacyModule } from '../platform/privacy/index.js';
import { SUBGRAPHS } from '../subgraphs/index.js';
import { webhooksModule } from '../webhooks/index.js';

/**
 * Every module of the service, in the order a process opens them (their migrations, queues and
 * services); the runtime (runtime.ts) is a loop over this list.
 */
export const MODULES: readonly ModuleDefinition[] = [platformModule, privacyModule, SUBGRAPHS.returns, SUBGRAPHS.inventory, SUBGRAPHS.events, webhooksModule];

/** Every reader of the outbox: registered by every role from the first start, so none misses an event. */
export const OUTBOX_CONSUMERS = MODULES.flatMap((m) => m.consumes ?? []);
