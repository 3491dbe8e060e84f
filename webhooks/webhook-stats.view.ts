import type { Window } from '../platform/analytics/time-window.js';
import type { HeavyReads } from '../platform/db/replica.js';
import { deliveryMeasures, liveSubscriptions, type MeasureRow } from './webhook-stats.rows.js';
import type { WebhookMeasuresType, WebhookStatsType } from './webhook-stats.type.js';

const NONE: WebhookMeasuresType = { deliveries: 0, succeeded: 0, failed: 0, pending: 0, attempts: 0, latencyP50Ms: null, latencyP95Ms: null };

/** `webhookStats`: the measures of webhook-stats.rows.ts per bucket, per subscription (most deliveries first) and in all. */
export async function loadWebhookStats(reads: HeavyReads, storeId: string, window: Window): Promise<WebhookStatsType> {
  const [rows, subscriptions] = await Promise.all([deliveryMeasures(reads, storeId, window), liveSubscriptions(reads, storeId)]);
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
