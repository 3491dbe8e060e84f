import type { AccountsService } from '../platform/accounts/accounts.service.js';
import type { Config } from '../platform/config.js';
import type { Orm } from '../platform/db/orm.js';
import type { Logger } from '../platform/observability/logger.js';
import { createConsumerQueue, startOutboxConsumer } from '../platform/jobs/outbox-consumers.js';
import { ensureQueue, type PgBoss } from '../platform/jobs/queue.js';
import { withDeadLetters } from '../platform/jobs/dead-letters.js';
import { RETENTION_DEFAULTS } from '../platform/privacy/retention.js';
import { openSecretBox } from '../platform/secret-box.js';
import { Deliverer, sweep } from './delivery.service.js';
import { FanOut, WEBHOOKS_CONSUMER } from './webhook.consumer.js';
import { replay } from './webhook-replay.job.js';
import { backfill, type BackfillSources } from './webhook-backfill.job.js';
import { WEBHOOK_BACKFILL_QUEUE, WEBHOOK_REPLAY_QUEUE, WebhookSubscriptions } from './webhook.service.js';

export { webhooksDbModule } from './db.js';
export { WEBHOOKS_CONSUMER } from './webhook.consumer.js';
export { registerWebhookMetrics } from './webhook.metrics.js';
export { WebhookSubscriptions } from './webhook.service.js';
export { WebhookResolver } from './webhook.resolver.js';
export { webhookPrivacy } from './webhook.privacy.js';
export { WebhookStatsResolver } from './webhook-stats.resolver.js';

/** Delivery log rows and finished messages are kept this long unless the store chose otherwise (docs/privacy.md); replay reaches as far back. */
export const WEBHOOK_RETENTION_DAYS = RETENTION_DEFAULTS.webhookLogDays!;

export interface WebhooksDeps {
  orm: Orm;
  boss: PgBoss;
  accounts: AccountsService;
  config: Config;
  logger: Logger;
  /** Reads of each topic's existing subjects, from their owning subgraphs (worker roles). */
  backfillSources?: BackfillSources;
}

export type { BackfillSources } from './webhook-backfill.job.js';

export async function createWebhookQueues(boss: PgBoss): Promise<void> {
  await createConsumerQueue(boss, WEBHOOKS_CONSUMER);
  for (const queue of [WEBHOOK_BACKFILL_QUEUE, WEBHOOK_REPLAY_QUEUE]) {
    await ensureQueue(boss, queue, { retryLimit: 5, retryDelay: 5, retryBackoff: true, ...(await withDeadLetters(boss, queue)) });
  }
}

/** The services the REST routes use. */
export async function webhookSubscriptions(deps: Pick<WebhooksDeps, 'orm' | 'boss' | 'accounts' | 'config'>): Promise<WebhookSubscriptions> {
  return new WebhookSubscriptions(deps.orm, deps.accounts, deps.boss, await openSecretBox(deps.accounts), deps.config);
}

/**
 * The worker side (roles `all` and `worker`): the fan-out from the outbox, the deliverer, replays,
 * and housekeeping. Returns a stop function that lets deliveries in flight finish.
 */
export async function startWebhookWorkers(deps: WebhooksDeps): Promise<() => Promise<void>> {
  const { orm, boss, accounts, config, logger } = deps;
  const box = await openSecretBox(accounts);
  const deliverer = new Deliverer(orm, box, config, logger.child({ part: 'webhooks' }));
  const fanOut = new FanOut(accounts);
  const stopFanOut = await startOutboxConsumer({
    declaration: WEBHOOKS_CONSUMER,
    orm,
    boss,
    logger,
    apply: (em, events) => fanOut.apply(em, events),
    // Only the events of stores with a subscription to their topic (a topic is its types' prefix) are read in full.
    wanted: `exists (select 1 from subscription s where s.store_id = o.store_id and s.topic = split_part(o.type, '.', 1))`,
    onConsumed: () => deliverer.poke(),
    idleMs: 20,
  });
  const sweeper = setInterval(() => void sweep(orm).catch((err: unknown) => logger.error({ err }, 'webhook sweep failed')), 60_000);
  sweeper.unref();
  await boss.work<{ subscriptionId: string; start: string }>(WEBHOOK_REPLAY_QUEUE, { pollingIntervalSeconds: 0.5 }, async ([job]) => {
    await replay(orm, job!.data.subscriptionId, job!.data.start);
    deliverer.poke();
  });
  await boss.work<{ subscriptionId: string }>(WEBHOOK_BACKFILL_QUEUE, { pollingIntervalSeconds: 0.5 }, async ([job]) => {
    await backfill(orm, accounts, deps.backfillSources ?? {}, job!.data.subscriptionId);
    deliverer.poke();
  });
  deliverer.start();
  return async () => {
    clearInterval(sweeper);
    await stopFanOut();
    await deliverer.stop();
  };
}
