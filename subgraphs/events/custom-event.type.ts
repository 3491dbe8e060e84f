import { JSONScalar as GraphQLJSON } from '../../platform/graphql/scalars.js';
import { Directive, Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { ConnectionType } from '../../platform/graphql/connection.js';

@Directive('@key(fields: "id")')
@ObjectType('CustomEvent')
export class CustomEventType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String)
  eventName!: string;

  @Field(() => Date)
  eventTimestamp!: Date;

  @Field(() => Float, { nullable: true })
  value!: number | null;

  @Field(() => String, { nullable: true })
  valueCurrency!: string | null;

  @Field(() => String, { nullable: true })
  uniqueId!: string | null;

  @Field(() => GraphQLJSON, { description: 'The properties as stored after the data rules (0, null and "" dropped; $extra apart).' })
  data!: Record<string, unknown>;

  @Field(() => GraphQLJSON, { nullable: true, description: 'The $extra object, verbatim.' })
  extra!: unknown;

  @Field(() => Date)
  createdAt!: Date;
}

export const CustomEventConnection = ConnectionType(CustomEventType, 'CustomEvent');

@ObjectType('EventProperty', { description: 'One entry of the property catalogue: a key seen on an event name, with the type it had.' })
export class EventPropertyType {
  @Field(() => String)
  eventName!: string;

  @Field(() => String)
  key!: string;

  @Field(() => String, { description: 'string, number, boolean, date, object or array' })
  type!: string;

  @Field(() => Boolean, { description: 'Objects and arrays are stored but cannot be used in segments.' })
  segmentable!: boolean;

  @Field(() => Date)
  firstSeenAt!: Date;
}

@ObjectType('RateLimitStatus')
export class RateLimitStatusType {
  @Field(() => Int)
  limit!: number;

  @Field(() => Int)
  remaining!: number;

  @Field(() => Int, { description: 'Seconds until the window resets.' })
  resetSeconds!: number;
}

@ObjectType('CustomEventAcceptance', { description: 'The event is durably queued for processing.' })
export class CustomEventAcceptanceType {
  @Field(() => Boolean)
  queued!: boolean;

  @Field(() => RateLimitStatusType)
  rateLimit!: RateLimitStatusType;
}

@ObjectType('BulkEventResult')
export class BulkEventResultType {
  @Field(() => Int)
  index!: number;

  @Field(() => String, { description: 'queued or rejected' })
  status!: 'queued' | 'rejected';

  @Field(() => GraphQLJSON, { nullable: true, description: 'For a rejected event: {detail, errors: [{pointer, detail}]}.' })
  error?: unknown;
}

@ObjectType('BulkEventsAcceptance')
export class BulkEventsAcceptanceType {
  @Field(() => Int)
  accepted!: number;

  @Field(() => Int)
  rejected!: number;

  @Field(() => [BulkEventResultType])
  results!: BulkEventResultType[];

  @Field(() => RateLimitStatusType)
  rateLimit!: RateLimitStatusType;
}

@ObjectType('DeadLetteredCustomEvent', { description: 'A custom event job that kept failing and was moved to the dead-letter queue.' })
export class DeadLetteredCustomEventType {
  @Field(() => ID, { description: 'The job id in the dead-letter queue (what retryDeadLetteredCustomEvents takes).' })
  id!: string;

  @Field(() => ID, { nullable: true })
  eventId!: string | null;

  @Field(() => ID, { nullable: true })
  storeId!: string | null;

  @Field(() => String, { nullable: true })
  eventName!: string | null;

  @Field(() => GraphQLJSON, { description: 'The job data as queued.' })
  job!: unknown;

  @Field(() => GraphQLJSON, { nullable: true, description: 'What the last attempt failed with.' })
  error!: unknown;

  @Field(() => Date)
  deadLetteredAt!: Date;
}

@ObjectType('Segment')
export class SegmentType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String)
  name!: string;

  @Field(() => GraphQLJSON)
  definition!: unknown;

  @Field(() => Date)
  createdAt!: Date;
}
