import type { DbModule } from '../db/orm.js';
import type { Logger } from '../observability/logger.js';
import type { PgBoss } from '../jobs/queue.js';
import { createErasureQueue, startErasureWorker } from './erasure.job.js';
import type { ErasureRequests } from './erasure.service.js';
import { Migration20261215000000_privacy } from './migrations/Migration20261215000000_privacy.js';
import type { PrivacyParticipants } from './participants.js';
import { createRetentionQueue, startRetentionWorker, type RetentionSettings } from './retention.js';

/**
 * Customer data on request (docs/privacy.md): erasure requests and their ledger, retention
 * settings and the jobs that enforce them. Each part of the service contributes its participants
 * (`PrivacyParticipants`); this module knows no domain table.
 */
export const PRIVACY_MIGRATIONS: DbModule['migrations'] = [{ name: 'Migration20261215000000_privacy', class: Migration20261215000000_privacy }];

export async function createPrivacyQueues(boss: PgBoss): Promise<void> {
  await createErasureQueue(boss);
  await createRetentionQueue(boss);
}

export interface PrivacyWorkers {
  boss: PgBoss;
  erasures: ErasureRequests;
  retention: RetentionSettings;
  /** In the order erasure runs them (participants.ts). */
  participants: readonly PrivacyParticipants[];
  /** When retention passes run (pg-boss cron). */
  retentionCron: string;
  logger: Logger;
}

export async function startPrivacyWorkers(w: PrivacyWorkers): Promise<void> {
  const logger = w.logger.child({ part: 'privacy' });
  await startErasureWorker(w.boss, w.erasures, w.participants.flatMap((p) => (p.erasure ? [p.erasure] : [])), logger);
  await startRetentionWorker(w.boss, w.retention, w.participants.flatMap((p) => (p.retention ? [p.retention] : [])), w.retentionCron, logger);
}
