import { Field, ID, Int, ObjectType } from 'type-graphql';
import { ConnectionType } from '../platform/graphql/connection.js';

/** A webhook subscription as dashboards read it (the REST document's fields; the bearer token masked). */
@ObjectType('WebhookSubscription')
export class WebhookSubscriptionType {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  topic!: string;

  @Field(() => String, { description: 'The callback URL.' })
  url!: string;

  @Field(() => String, { nullable: true, description: '`****` and the last 4 characters of the bearer token, or null without one.' })
  maskedToken!: string | null;

  @Field(() => String)
  kind!: string;

  @Field(() => String, { nullable: true })
  externalId!: string | null;

  @Field(() => Boolean, { description: 'True after the receiver answered 410, until a PUT re-enables it.' })
  disabled!: boolean;

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
