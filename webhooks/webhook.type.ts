import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { ConnectionType } from '../platform/graphql/connection.js';

/** A webhook subscription as dashboards read it (the REST document's fields; the bearer token masked). */
@ObjectType('WebhookSubscription')
export class WebhookSubscriptionType {
  @Field(() => ID)
  id!: string;

  @Field(() => String, { description: 'Its first topic (all of them: `topics`).' })
  topic!: string;

  @Field(() => [String])
  topics!: string[];

  @Field(() => [String], { nullable: true, description: 'The event types it takes (`return.created`, ...); null: every type of its topics.' })
  eventTypes!: string[] | null;

  @Field(() => String, { description: 'The callback URL.' })
  url!: string;

  @Field(() => String, { nullable: true, description: '`****` and the last 4 characters of the bearer token, or null without one.' })
  maskedToken!: string | null;

  @Field(() => String)
  kind!: string;

  @Field(() => String, { nullable: true })
  externalId!: string | null;

  @Field(() => Boolean, { description: 'True once disabled (a 410, nothing but failures for WEBHOOK_DISABLE_AFTER_HOURS, or deactivated), until a PUT re-enables it.' })
  disabled!: boolean;

  @Field(() => String, { description: '`active` or `disabled`.' })
  status!: string;

  @Field(() => String, { nullable: true })
  disabledReason!: string | null;

  @Field(() => Date, { nullable: true })
  disabledAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'The first failed attempt since the last success; null while deliveries succeed.' })
  failingSince!: Date | null;

  @Field(() => String, { nullable: true, description: 'The error of the last failed attempt.' })
  lastError!: string | null;

  @Field(() => Float, { nullable: true, description: 'Succeeded attempts over all finished attempts of the last 24 hours (0..1); null without any.' })
  successRate24h!: number | null;

  @Field(() => Int, { nullable: true, description: 'At most this many deliveries a second; null: no limit.' })
  maxDeliveriesPerSecond!: number | null;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}

@ObjectType('WebhookDelivery')
export class WebhookDeliveryType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  webhookId!: string;

  @Field(() => String, { description: 'The message (`webhook-id`) the attempt sent.' })
  messageId!: string;

  @Field(() => String)
  eventId!: string;

  @Field(() => String, { description: '`created`, `updated` or `backfill`.' })
  type!: string;

  @Field(() => String)
  subjectId!: string;

  @Field(() => Int)
  attempt!: number;

  @Field(() => String, { description: '`pending`, `succeeded`, `failed` or `discarded`.' })
  status!: string;

  @Field(() => Int, { nullable: true })
  responseStatus!: number | null;

  @Field(() => Int, { nullable: true })
  durationMs!: number | null;

  @Field(() => String, { nullable: true })
  error!: string | null;

  @Field(() => Date)
  createdAt!: Date;
}

export const WebhookSubscriptionConnection = ConnectionType(WebhookSubscriptionType, 'WebhookSubscription');
export const WebhookDeliveryConnection = ConnectionType(WebhookDeliveryType, 'WebhookDelivery');
