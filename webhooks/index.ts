import type { AccountsService } from '../platform/accounts/accounts.service.js';
import type { Config } from '../platform/config.js';
import type { Orm } from '../platform/db/orm.js';
import type { Logger } from '../platform/logger.js';
import { ensureQueue, type PgBoss } from '../platform/queue.js';
import { withDeadLetters } from '../platform/dead-letters.js';
import { openSecretBox } from '../platform/secret-box.js';
import { Deliverer, sweep } from './delivery.js';
import { FanOut } from './fanout.js';
import { replay } from './replay.js';
import { backfill, type BackfillSources } from './backfill.js';
import { WEBHOOK_BACKFILL_QUEUE, WEBHOOK_REPLAY_QUEUE, WebhookSubscriptions } from './subscriptions.js';

export { webhooksDbModule } from './db.js';
export { registerWebhookMetrics } from './metrics.js';
export { WebhookSubscriptions } from './subscriptions.js';
export { WebhookResolver } from './webhook.resolver.js';

/** Delivery log rows and finished messages are kept this long (docs/webhooks.md); replay reaches as far back. */
export const WEBHOOK_RETENTION_DAYS = 30;

export interface WebhooksDeps {
  orm: Orm;
  boss: PgBoss;
  accounts: AccountsService;
  config: Config;
  logger: Logger;
  /** The outbox queue that keeps every published event for webhooks. */
  outboxQueue: string;
  /** Reads of each topic's existing subjects, from their owning subgraphs (worker roles). */
  backfillSources?: BackfillSources;
}

export type { BackfillSources } from './backfill.js';

export async function createWebhookQueues(boss: PgBoss): Promise<void> {
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
  const fanOut = new FanOut(orm, boss, accounts, deps.outboxQueue);
  await fanOut.ensureIndex();
  let running = true;
  const fanOutLoop = (async () => {
    while (running) {
      let moved = 0;
      try {
        moved = await fanOut.pass();
        if (moved) deliverer.poke();
      } catch (err) {
        logger.error({ err }, 'webhook fan-out failed');
      }
      if (!moved) await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const sweeper = setInterval(() => void sweep(orm, WEBHOOK_RETENTION_DAYS).catch((err: unknown) => logger.error({ err }, 'webhook sweep failed')), 60_000);
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
    running = false;
    clearInterval(sweeper);
    await fanOutLoop;
    await deliverer.stop();
  };
}
