import { bucketOf } from '../platform/analytics/sql.js';
import type { Window } from '../platform/analytics/time-window.input.js';
import { Conditions } from '../platform/db/keyset.js';
import { heavySql, type HeavyReads } from '../platform/db/replica.js';
import type { WebhookMeasuresType, WebhookStatsType } from './webhook-stats.type.js';

type MeasureRow = WebhookMeasuresType & { bucket: number | null; subscriptionId: string | null; grouping: number };

const NONE: WebhookMeasuresType = { deliveries: 0, succeeded: 0, failed: 0, pending: 0, attempts: 0, latencyP50Ms: null, latencyP95Ms: null };

/**
 * Deliveries of a window per bucket, per subscription and in all, in one pass over the store's
 * messages by (subscription, created_at): the percentiles cannot be summed, so each grouping is
 * computed from the messages themselves. Messages are kept 30 days after they finish.
 */
export async function webhookStats(reads: HeavyReads, storeId: string, window: Window): Promise<WebhookStatsType> {
  const c = new Conditions();
  const bucket = bucketOf(c, window);
  const [rows, subscriptions] = await Promise.all([
    heavySql<MeasureRow>(reads, `with m as (
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
    ),
    heavySql<{ id: string; topic: string; url: string; disabled_at: Date | null; disabled_reason: string | null; failing_since: Date | null; last_error: string | null; success_rate: number | null }>(
      reads,
      `select id, topic, url, disabled_at, disabled_reason, failing_since, last_error,
              (select (count(*) filter (where a.status = 'succeeded'))::float8 / nullif(count(*) filter (where a.status <> 'pending'), 0)
                 from attempt a where a.subscription_id = s.id and a.created_at > now() - interval '24 hours') as success_rate
         from subscription s where store_id = $1 and deleted_at is null order by created_at, id`,
      [storeId],
    ),
  ]);
  const measures = ({ deliveries, succeeded, failed, pending, attempts, latencyP50Ms, latencyP95Ms }: MeasureRow): WebhookMeasuresType => ({
    deliveries,
    succeeded,
    failed,
    pending,
    attempts,
    latencyP50Ms,
    latencyP95Ms,
  });
  // grouping(): 1 when the subscription is rolled up (a bucket's row), 2 when the bucket is, 3 for the total.
  const buckets = new Map(rows.filter((r) => r.grouping === 1).map((r) => [r.bucket!, measures(r)]));
  const perSubscription = new Map(rows.filter((r) => r.grouping === 2).map((r) => [r.subscriptionId!, measures(r)]));
  const total = rows.find((r) => r.grouping === 3);
  return {
    totals: total ? measures(total) : NONE,
    series: window.starts.map((start, i) => ({ start: new Date(start), measures: buckets.get(i) ?? NONE })),
    subscriptions: subscriptions
      .map((s) => ({
        webhookId: s.id,
        topic: s.topic,
        url: s.url,
        status: s.disabled_at === null ? 'active' : 'disabled',
        disabledReason: s.disabled_reason,
        failingSince: s.failing_since,
        lastError: s.last_error,
        successRate24h: s.success_rate === null ? null : Math.round(s.success_rate * 10_000) / 10_000,
        measures: perSubscription.get(s.id) ?? NONE,
      }))
      .sort((a, b) => b.measures.deliveries - a.measures.deliveries),
  };
}
