import { defineModule } from '../module.js';
import { createErasureQueue, startErasureWorker } from './erasure.job.js';
import { ErasureRequests } from './erasure.service.js';
import { PrivacyResolver } from './privacy.resolver.js';
import { createRetentionQueue, RetentionSettings, startRetentionWorker } from './retention.js';

/**
 * Customer data on request (docs/privacy.md): erasure requests and retention settings (the GraphQL
 * of the platform subgraph), and the workers that run erasures and retention passes over every
 * module's participants, in erasure order (participants.ts). It knows no domain table.
 */
export const privacyModule = defineModule({
  name: 'privacy',
  async queues(boss) {
    await createErasureQueue(boss);
    await createRetentionQueue(boss);
  },
  services: (deps) => ({ deps, erasures: new ErasureRequests(deps.orm, deps.boss, deps.secrets), retention: new RetentionSettings(deps.orm) }),
  graph: {
    graph: 'platform',
    resolvers: [PrivacyResolver],
    instances: ({ deps, erasures, retention }) => [new PrivacyResolver({ accounts: deps.accounts, boss: deps.boss, erasures, retention })],
  },
  async workers({ deps, erasures, retention }) {
    const logger = deps.logger.child({ part: 'privacy' });
    const participants = deps.contributions.privacy;
    await startErasureWorker(deps.boss, erasures, participants.flatMap((p) => (p.erasure ? [p.erasure] : [])), logger);
    await startRetentionWorker(deps.boss, retention, participants.flatMap((p) => (p.retention ? [p.retention] : [])), deps.config.retentionCron, logger);
  },
});
