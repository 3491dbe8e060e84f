import { Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';
import { BucketType, type Bucket } from '../../platform/analytics/bucket.type.js';
import { MoneyType } from '../../platform/graphql/money.type.js';
import { ReturnStatsBasis } from './return-stats.input.js';

export enum ReturnDimension {
  STATUS = 'STATUS',
  REASON = 'REASON',
  SKU = 'SKU',
  TYPE = 'TYPE',
  OUTCOME = 'OUTCOME',
}
registerEnumType(ReturnDimension, {
  name: 'ReturnDimension',
  description: 'What returnStats groups by. REASON, SKU and OUTCOME group by item: a return counts once in each group it has an item in.',
});

export enum ReturnRateBasis {
  ORDERED = 'ORDERED',
  FULFILLED = 'FULFILLED',
}
registerEnumType(ReturnRateBasis, {
  name: 'ReturnRateBasis',
  description: "What returnRate divides by: the units ordered (ORDERED), or the units of those orders fulfilled (FULFILLED: in fulfillments that are not cancelled; orders that report none count none).",
});

@ObjectType('ReturnMeasures')
export class ReturnMeasuresType {
  @Field(() => Int, { description: 'Returns created in the span.' })
  returns!: number;

  @Field(() => Int, { description: 'Units in their active items (in a REASON, SKU or OUTCOME group: that group\'s units).' })
  items!: number;

  @Field(() => [MoneyType], { description: "Refunds of those items per currency, each summed exactly and rounded once to the currency's minor unit; none when zero." })
  refund!: MoneyType[];

  @Field(() => [MoneyType])
  storeCredit!: MoneyType[];

  @Field(() => [MoneyType])
  exchange!: MoneyType[];

  @Field(() => Float, {
    nullable: true,
    description: 'items / units ordered in orders created in the same span (a SKU group: units of that sku), or / units of those orders fulfilled (rateBasis FULFILLED); null when there are none.',
  })
  returnRate!: number | null;
}

const ReturnBucketType = BucketType(ReturnMeasuresType, 'ReturnBucket');

@ObjectType('ReturnGroup')
export class ReturnGroupType {
  @Field(() => String, { description: 'The status, reason, sku, type or outcome ("" for items without a sku or an outcome).' })
  key!: string;

  @Field(() => ReturnMeasuresType)
  measures!: ReturnMeasuresType;
}

@ObjectType('ReturnStats')
export class ReturnStatsType {
  @Field(() => Date, { description: 'The start of the period answered (the window, or the period before it in `previous`).' })
  from!: Date;

  @Field(() => Date, { description: 'Its end, exclusive.' })
  until!: Date;

  @Field(() => ReturnStatsBasis, { description: 'What placed the returns in the buckets.' })
  basis!: ReturnStatsBasis;

  @Field(() => ReturnMeasuresType)
  totals!: ReturnMeasuresType;

  @Field(() => [ReturnBucketType], { description: 'Every bucket of the window, ascending, empty ones included.' })
  series!: Bucket<ReturnMeasuresType>[];

  @Field(() => [ReturnGroupType], { description: 'The 50 largest groups by returns, then by key; empty without `by`.' })
  groups!: ReturnGroupType[];

  @Field(() => ReturnStatsType, { nullable: true, description: 'With compareTo: PREVIOUS_PERIOD, the same measures for the period just before (its own buckets, cut the same way); null otherwise.' })
  previous!: ReturnStatsType | null;
}
