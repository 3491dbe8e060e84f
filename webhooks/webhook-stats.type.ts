import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { BucketType, type Bucket } from '../platform/analytics/bucket.type.js';

@ObjectType('WebhookMeasures', { description: 'Deliveries (events owed to a subscription) created in the span, by where they stand now.' })
export class WebhookMeasuresType {
  @Field(() => Int)
  deliveries!: number;

  @Field(() => Int, { description: 'Delivered (a 2xx answer).' })
  succeeded!: number;

  @Field(() => Int, { description: 'Given up: retries exhausted, or the subscription stayed disabled.' })
  failed!: number;

  @Field(() => Int, { description: 'Still owed: waiting for a retry, or behind an earlier event of the same subject.' })
  pending!: number;

  @Field(() => Int, { description: 'Attempts made for them, retries included.' })
  attempts!: number;

  @Field(() => Float, { nullable: true, description: 'Median time from the event to its successful delivery, in ms; null without one.' })
  latencyP50Ms!: number | null;

  @Field(() => Float, { nullable: true, description: '95th percentile of the same.' })
  latencyP95Ms!: number | null;
}

const WebhookBucketType = BucketType(WebhookMeasuresType, 'WebhookBucket');

@ObjectType('WebhookSubscriptionStats')
export class WebhookSubscriptionStatsType {
  @Field(() => ID)
  webhookId!: string;

  @Field(() => String)
  topic!: string;

  @Field(() => String)
  url!: string;

  @Field(() => String, { description: '`active` or `disabled`.' })
  status!: string;

  @Field(() => String, { nullable: true })
  disabledReason!: string | null;

  @Field(() => Date, { nullable: true, description: 'The first failed attempt since the last success; null while deliveries succeed.' })
  failingSince!: Date | null;

  @Field(() => String, { nullable: true, description: 'The error of the last failed attempt.' })
  lastError!: string | null;

  @Field(() => Float, { nullable: true, description: 'Succeeded attempts over all finished attempts of the last 24 hours (0..1), whatever the window; null without any.' })
  successRate24h!: number | null;

  @Field(() => WebhookMeasuresType)
  measures!: WebhookMeasuresType;
}

@ObjectType('WebhookStats')
export class WebhookStatsType {
  @Field(() => WebhookMeasuresType)
  totals!: WebhookMeasuresType;

  @Field(() => [WebhookBucketType], { description: 'Every bucket of the window, ascending, empty ones included.' })
  series!: Bucket<WebhookMeasuresType>[];

  @Field(() => [WebhookSubscriptionStatsType], { description: 'Every subscription of the store, most deliveries first.' })
  subscriptions!: WebhookSubscriptionStatsType[];
}
