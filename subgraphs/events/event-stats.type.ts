import { Field, Float, Int, ObjectType } from 'type-graphql';
import { BucketType, type Bucket } from '../../platform/analytics/bucket.type.js';

@ObjectType('EventMeasures')
export class EventMeasuresType {
  @Field(() => Int, { description: 'Events whose eventTimestamp is in the span.' })
  count!: number;

  @Field(() => Int, { description: 'Distinct customers among them (exact).' })
  uniqueCustomers!: number;

  @Field(() => Float, { nullable: true, description: 'The sum of the numeric data property `sumProperty` over them (values that are not JSON numbers do not count); null without sumProperty.' })
  sum!: number | null;
}

const EventBucketType = BucketType(EventMeasuresType, 'EventBucket');

@ObjectType('EventGroup')
export class EventGroupType {
  @Field(() => String, { description: 'A value of the data property `by` (strings as they are, numbers and booleans as JSON writes them).' })
  key!: string;

  @Field(() => EventMeasuresType)
  measures!: EventMeasuresType;
}

@ObjectType('EventStats')
export class EventStatsType {
  @Field(() => EventMeasuresType)
  totals!: EventMeasuresType;

  @Field(() => [EventBucketType], { description: 'Every bucket of the window, ascending, empty ones included.' })
  series!: Bucket<EventMeasuresType>[];

  @Field(() => [EventGroupType], { description: 'The 50 largest values of `by` by count, then by key (events without a scalar value of it are in no group); empty without `by`.' })
  groups!: EventGroupType[];
}
