import { Field, ID, Int, ObjectType } from 'type-graphql';
import { BucketType, type Bucket } from '../../../platform/analytics/bucket.type.js';

@ObjectType('MessageCount')
export class MessageCountType {
  @Field(() => String, { description: 'EMAIL or SMS' })
  channel!: string;

  @Field(() => String, { description: 'SENT, RECORDED or FAILED' })
  status!: string;

  @Field(() => Int)
  count!: number;
}

@ObjectType('FlowMeasures')
export class FlowMeasuresType {
  @Field(() => Int, { description: 'Runs started in the span.' })
  runsStarted!: number;

  @Field(() => Int, { description: 'Runs that finished in the span, by their end: completed, failed, exited (their audience or a condition let them go).' })
  runsCompleted!: number;

  @Field(() => Int)
  runsFailed!: number;

  @Field(() => Int)
  runsExited!: number;

  @Field(() => [MessageCountType], { description: 'Messages sent (or recorded) in the span, by channel and status.' })
  messages!: MessageCountType[];
}

const FlowBucketType = BucketType(FlowMeasuresType, 'FlowBucket');

@ObjectType('FlowGroup')
export class FlowGroupType {
  @Field(() => ID)
  flowId!: string;

  @Field(() => String)
  name!: string;

  @Field(() => FlowMeasuresType)
  measures!: FlowMeasuresType;
}

@ObjectType('FlowStats')
export class FlowStatsType {
  @Field(() => FlowMeasuresType)
  totals!: FlowMeasuresType;

  @Field(() => [FlowBucketType], { description: 'Every bucket of the window, ascending, empty ones included.' })
  series!: Bucket<FlowMeasuresType>[];

  @Field(() => [FlowGroupType], { description: 'The 50 flows with the most runs started, then by name.' })
  flows!: FlowGroupType[];
}
