import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { BucketType, type Bucket } from '../../platform/analytics/bucket.type.js';

@ObjectType('StockOnHand', { description: 'Units on hand of one kind at one location.' })
export class StockOnHandType {
  @Field(() => ID)
  locationId!: string;

  @Field(() => String)
  locationName!: string;

  @Field(() => String, { description: 'PRODUCT, RETURN, UNDECLARED or UNKNOWN' })
  kind!: string;

  @Field(() => Float, { description: 'A sum of items of up to 2,147,483,647 units each, hence a Float (exact to 2^53).' })
  units!: number;
}

@ObjectType('InboundMeasures')
export class InboundMeasuresType {
  @Field(() => Int, { description: 'Shipments in transit (IN_TRANSIT or PARTIALLY_RECEIVED).' })
  shipments!: number;

  @Field(() => Float, { description: 'Their units not yet received, damaged or missing.' })
  units!: number;
}

const InboundBucketType = BucketType(InboundMeasuresType, 'InboundBucket');

@ObjectType('InboundStats', { description: 'Units in transit by expected arrival (a calendar date, counted at its midnight in the window\'s time zone).' })
export class InboundStatsType {
  @Field(() => InboundMeasuresType, { description: 'Expected within the window.' })
  totals!: InboundMeasuresType;

  @Field(() => [InboundBucketType])
  series!: Bucket<InboundMeasuresType>[];

  @Field(() => InboundMeasuresType, { description: 'Expected before the window and still in transit.' })
  overdue!: InboundMeasuresType;

  @Field(() => InboundMeasuresType, { description: 'Expected after the window.' })
  later!: InboundMeasuresType;

  @Field(() => InboundMeasuresType, { description: 'With no expected arrival date.' })
  unscheduled!: InboundMeasuresType;
}

@ObjectType('InventoryStats')
export class InventoryStatsType {
  @Field(() => [StockOnHandType], { description: 'Now, by location and kind (locations by name).' })
  onHand!: StockOnHandType[];

  @Field(() => InboundStatsType)
  inbound!: InboundStatsType;
}
