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
    queued.reset();
    lag.reset();
    for (const row of rows) {
      queued.set({ subscription: row.subscription }, row.queued);
      lag.set({ subscription: row.subscription }, Math.max(0, row.oldest));
    }
  });
}
