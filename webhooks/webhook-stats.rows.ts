import { bucketOf } from '../platform/analytics/sql.js';
import type { Window } from '../platform/analytics/time-window.js';
import { Conditions } from '../platform/db/keyset.js';
import { heavySql, type HeavyReads } from '../platform/db/replica.js';

/**
 * The reads behind `webhookStats` (the view, webhook-stats.view.ts, arranges them). Deliveries of
 * a window per bucket, per subscription and in all, in one pass over the store's messages by
 * (subscription, created_at): the percentiles cannot be summed, so each grouping is computed from
 * the messages themselves. Messages are kept 30 days after they finish.
 */

/** The measures of one grouping: a bucket's (`grouping` 1), a subscription's (2) or the window's (3). */
export interface MeasureRow {
  bucket: number | null;
  subscriptionId: string | null;
  grouping: number;
  deliveries: number;
  succeeded: number;
  failed: number;
  pending: number;
  attempts: number;
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
}

export function deliveryMeasures(reads: HeavyReads, storeId: string, window: Window): Promise<MeasureRow[]> {
  const c = new Conditions();
  const bucket = bucketOf(c, window);
  return heavySql<MeasureRow>(reads, `with m as (
       select s.id as subscription_id, ${bucket('m.created_at')} as bucket, m.state, m.attempts,
              case when m.state = 'succeeded' then extract(epoch from m.finished_at - m.created_at) * 1000 end as latency
         from subscription s join message m on m.subscription_id = s.id
          and m.created_at >= ${c.p(new Date(window.from).toISOString(), 'timestamptz')} and m.created_at < ${c.p(new Date(window.until).toISOString(), 'timestamptz')}
        where s.store_id = ${c.p(storeId)} and s.deleted_at is null)
     select bucket, subscription_id as "subscriptionId", grouping(bucket, subscription_id) as grouping, count(*)::int as deliveries,
            (count(*) filter (where state = 'succeeded'))::int as succeeded, (count(*) filter (where state = 'discarded'))::int as failed,
            (count(*) filter (where state = 'queued'))::int as pending, sum(attempts)::int as attempts,
            percentile_cont(0.5) within group (order by latency) as "latencyP50Ms", percentile_cont(0.95) within group (order by latency) as "latencyP95Ms"
       from m group by grouping sets ((bucket), (subscription_id), ())`,
    c.params,
  );
}

/** A live subscription of the store with its endpoint health (success rate over the last 24 hours, whatever the window). */
export interface SubscriptionHealthRow {
  id: string;
  topic: string;
  url: string;
  disabled_at: Date | null;
  disabled_reason: string | null;
  failing_since: Date | null;
  last_error: string | null;
  success_rate: number | null;
}

/** The store's live subscriptions with their health, oldest first. */
export function liveSubscriptions(reads: HeavyReads, storeId: string): Promise<SubscriptionHealthRow[]> {
  return heavySql<SubscriptionHealthRow>(
    reads,
    `select id, topic, url, disabled_at, disabled_reason, failing_since, last_error,
            (select (count(*) filter (where a.status = 'succeeded'))::float8 / nullif(count(*) filter (where a.status <> 'pending'), 0)
               from attempt a where a.subscription_id = s.id and a.created_at > now() - interval '24 hours') as success_rate
       from subscription s where store_id = $1 and deleted_at is null order by created_at, id`,
    [storeId],
  );
}
