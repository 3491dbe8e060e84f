import { createConsumerQueue, startOutboxConsumer } from '../platform/jobs/outbox-consumers.js';
import { ensureQueue, RETRIES } from '../platform/jobs/queue.js';
import { defineModule, type ModuleDeps } from '../platform/module.js';
import { RETENTION_DEFAULTS } from '../platform/privacy/retention.js';
import { Deliverer, sweep } from './delivery.service.js';
import { Migration20261210000100_webhooks } from './migrations/Migration20261210000100_webhooks.js';
import { Migration20261227000000_message_trace } from './migrations/Migration20261227000000_message_trace.js';
import { Migration20261230000000_subscription_deleted } from './migrations/Migration20261230000000_subscription_deleted.js';
import { Migration20270105000000_endpoint_health } from './migrations/Migration20270105000000_endpoint_health.js';
import { mailSenderOf } from '../platform/mail.js';
import { emailDisabledNotice } from './webhook-health.service.js';
import { backfill } from './webhook-backfill.job.js';
import { replay } from './webhook-replay.job.js';
import { FanOut, WEBHOOKS_CONSUMER } from './webhook.consumer.js';
import { registerWebhookMetrics } from './webhook.metrics.js';
import { webhookPrivacy } from './webhook.privacy.js';
import { WebhookResolver } from './webhook.resolver.js';
import { WebhookStatsResolver } from './webhook-stats.resolver.js';
import { WEBHOOK_BACKFILL_QUEUE, WEBHOOK_REPLAY_QUEUE, WebhookSubscriptions } from './webhook.service.js';

/** Delivery log rows and finished messages are kept this long unless the store chose otherwise (docs/privacy.md); replay reaches as far back. */
export const WEBHOOK_RETENTION_DAYS = RETENTION_DEFAULTS.webhookLogDays!;

function services(deps: ModuleDeps) {
  return { deps, subscriptions: new WebhookSubscriptions(deps.orm, deps.accounts, deps.boss, deps.secrets, deps.config) };
}

/**
 * Webhooks sit above the subgraphs (they know their event contracts and read their subjects'
 * documents through the modules that own them), in their own schema. Gateway roles serve the
 * subscriptions (REST) and the dashboards' read-only queries (platform subgraph); worker roles run
 * the fan-out from the outbox, the deliverer, replays, backfills and housekeeping.
 */
export const webhooksModule = defineModule({
  name: 'webhooks',
  consumes: [WEBHOOKS_CONSUMER],
  servesFacade: true,
  db: {
    name: 'webhooks',
    schema: 'webhooks',
    migrations: [
      { name: 'Migration20261210000100_webhooks', class: Migration20261210000100_webhooks },
      { name: 'Migration20261227000000_message_trace', class: Migration20261227000000_message_trace },
      { name: 'Migration20261230000000_subscription_deleted', class: Migration20261230000000_subscription_deleted },
      { name: 'Migration20270105000000_endpoint_health', class: Migration20270105000000_endpoint_health },
    ],
  },
  async queues(boss) {
    await createConsumerQueue(boss, WEBHOOKS_CONSUMER);
    // A backfill of a large store runs long: its heartbeat shows it alive, and a worker lost in a failover is noticed within seconds.
    for (const queue of [WEBHOOK_BACKFILL_QUEUE, WEBHOOK_REPLAY_QUEUE]) await ensureQueue(boss, queue, { ...RETRIES.requested, heartbeatSeconds: 30, deadLetters: true });
  },
  services,
  graph: {
    graph: 'platform',
    resolvers: [WebhookResolver, WebhookStatsResolver],
    instances: ({ deps, subscriptions }) => [
      new WebhookResolver({ webhooks: subscriptions, accounts: deps.accounts }),
      new WebhookStatsResolver({ reads: deps.heavyReads, accounts: deps.accounts }),
    ],
  },
  async workers({ deps }) {
    const { orm, boss, accounts, config, logger } = deps;
    const webhookLogger = logger.child({ part: 'webhooks' });
    const deliverer = new Deliverer(orm, deps.secrets, config, webhookLogger, emailDisabledNotice(accounts, mailSenderOf(config), webhookLogger));
    const fanOut = new FanOut(accounts);
    const stopFanOut = await startOutboxConsumer({
      declaration: WEBHOOKS_CONSUMER,
      orm,
      boss,
      logger,
      apply: (em, events) => fanOut.apply(em, events),
      // Only the events of stores with a subscription to their topic (a topic is its types' prefix) are read in full.
      wanted: `exists (select 1 from subscription s where s.store_id = o.store_id and s.topics @> array[split_part(o.type, '.', 1)] and s.deleted_at is null)`,
      onConsumed: () => deliverer.poke(),
      idleMs: 20,
    });
    const sweeper = setInterval(() => void sweep(orm, logger).catch((err: unknown) => logger.error({ err }, 'webhook sweep failed')), 60_000);
    sweeper.unref();
    await boss.work<{ subscriptionId: string; start: string }>(WEBHOOK_REPLAY_QUEUE, { pollingIntervalSeconds: 0.5 }, async ([job]) => {
      await replay(orm, job!.data.subscriptionId, job!.data.start);
      deliverer.poke();
    });
    await boss.work<{ subscriptionId: string }>(WEBHOOK_BACKFILL_QUEUE, { pollingIntervalSeconds: 0.5 }, async ([job]) => {
      await backfill(orm, accounts, deps.contributions.subjects, job!.data.subscriptionId);
      deliverer.poke();
    });
    deliverer.start();
    return async () => {
      clearInterval(sweeper);
      await stopFanOut();
      await deliverer.stop();
    };
  },
  privacy: ({ deps }) => [webhookPrivacy(deps.orm)],
  metrics: ({ deps }) => registerWebhookMetrics(deps.orm),
});
