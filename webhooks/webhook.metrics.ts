import { sql, type Orm } from '../platform/db/orm.js';
import { metrics } from '../platform/observability/metrics.js';

/** Subscriptions reported per scrape: the ones furthest behind (a label per subscription must stay bounded). */
const REPORTED = 100;

const queued = metrics.gauge('webhook_queued_messages', `Messages waiting for delivery per enabled subscription (the ${REPORTED} furthest behind).`, ['subscription']);
const lag = metrics.gauge(
  'webhook_delivery_lag_seconds',
  `Age of the oldest message waiting for delivery per enabled subscription (the ${REPORTED} furthest behind): how far its deliveries are behind.`,
  ['subscription'],
);

/** Subscriptions disabled by the deliverer, by why: `failing` (nothing but failures for the disable window) or `gone` (a 410). */
export const webhookSubscriptionsDisabled = metrics.counter('webhook_subscriptions_disabled_total', 'Webhook subscriptions the service disabled, by reason (failing: nothing but failures for WEBHOOK_DISABLE_AFTER_HOURS; gone: a 410).', ['reason']);
const disabledNow = metrics.gauge('webhook_disabled_subscriptions', 'Webhook subscriptions disabled now (not deleted): their events wait for a PUT.');

interface LagRow {
  subscription: string;
  queued: number;
  oldest: number;
}

/**
 * Per-subscription delivery lag, read at scrape time from the messages still queued (a
 * subscription disabled by a 410 waits for its PUT on purpose and is left out). Only subscriptions
 * with messages waiting have series. Returns the function that removes the reader.
 */
export function registerWebhookMetrics(orm: Orm): () => void {
  return metrics.collector(async () => {
    const rows = await sql<LagRow>(
      orm.em.fork(),
      `select m.subscription_id as subscription, count(*)::int as queued, extract(epoch from now() - min(m.created_at))::float8 as oldest
         from message m join subscription s on s.id = m.subscription_id
        where m.state = 'queued' and s.disabled_at is null and s.deleted_at is null
        group by m.subscription_id order by oldest desc limit ${REPORTED}`,
    );
    const [disabled] = await sql<{ n: number }>(orm.em.fork(), 'select count(*)::int as n from subscription where disabled_at is not null and deleted_at is null');
    disabledNow.set(disabled!.n);
    queued.reset();
    lag.reset();
    for (const row of rows) {
      queued.set({ subscription: row.subscription }, row.queued);
      lag.set({ subscription: row.subscription }, Math.max(0, row.oldest));
    }
  });
}
