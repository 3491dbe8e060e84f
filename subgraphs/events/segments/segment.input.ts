import { JSONScalar as GraphQLJSON } from '../../../platform/graphql/scalars.js';
import { Field, Float, InputType, Int, registerEnumType } from 'type-graphql';
import { ConsentChannelEnum, ConsentKindEnum, ConsentStatusEnum } from '../customers/consent.type.js';

export enum SegmentOperator {
  EQUALS = 'EQUALS',
  NOT_EQUALS = 'NOT_EQUALS',
  CONTAINS = 'CONTAINS',
  GREATER_THAN = 'GREATER_THAN',
  LESS_THAN = 'LESS_THAN',
  BEFORE = 'BEFORE',
  AFTER = 'AFTER',
  WITHIN_LAST_DAYS = 'WITHIN_LAST_DAYS',
  IS_SET = 'IS_SET',
  IS_NOT_SET = 'IS_NOT_SET',
}
registerEnumType(SegmentOperator, { name: 'SegmentOperator' });

@InputType('PropertyConditionInput')
export class PropertyConditionInput {
  @Field(() => String)
  key!: string;

  @Field(() => SegmentOperator)
  operator!: SegmentOperator;

  @Field(() => GraphQLJSON, { nullable: true })
  value?: unknown;
}

@InputType('EventConditionInput', { description: 'Performed eventName between minCount and maxCount times in the window, counting events whose properties meet every `where`.' })
export class EventConditionInput {
  @Field(() => String)
  eventName!: string;

  @Field(() => Int, { nullable: true, defaultValue: 1 })
  minCount?: number;

  @Field(() => Int, { nullable: true })
  maxCount?: number;

  @Field(() => Date, { nullable: true, description: 'Inclusive.' })
  since?: Date | string;

  @Field(() => Date, { nullable: true, description: 'Exclusive.' })
  until?: Date | string;

  @Field(() => Int, { nullable: true })
  withinLastDays?: number;

  @Field(() => [PropertyConditionInput], { nullable: true })
  where?: PropertyConditionInput[];
}

@InputType('ProfileConditionInput')
export class ProfileConditionInput {
  @Field(() => String, { description: 'email, phoneNumber, firstName, lastName, createdAt, updatedAt, location.<field> or customFields.<key>' })
  field!: string;

  @Field(() => SegmentOperator)
  operator!: SegmentOperator;

  @Field(() => GraphQLJSON, { nullable: true })
  value?: unknown;
}

@InputType('ConsentConditionInput', { description: 'Customers whose consent on the channel (marketing unless `kind` says otherwise) is one of `statuses`.' })
export class ConsentConditionInput {
  @Field(() => ConsentChannelEnum)
  channel!: string;

  @Field(() => ConsentKindEnum, { nullable: true, defaultValue: 'marketing' })
  kind?: string;

  @Field(() => [ConsentStatusEnum], { description: '`[subscribed, confirmed]`: those marketing may reach.' })
  statuses!: string[];
}


@InputType('ReturnHistoryConditionInput', {
  description: "Made at least minCount returns (default 1) of the given statuses and reasons, created in the last withinLastDays days (default: ever); the customer's returns are those of orders with their email or phone.",
})
export class ReturnHistoryConditionInput {
  @Field(() => Int, { nullable: true, defaultValue: 1 })
  minCount?: number;

  @Field(() => Int, { nullable: true })
  withinLastDays?: number;

  @Field(() => [String], { nullable: true, description: 'Any of these return statuses (default: any but deleted).' })
  status?: string[];

  @Field(() => [String], { nullable: true, description: 'Returns with an item of any of these reasons.' })
  reason?: string[];
}

@InputType('ReturnRateConditionInput', {
  description: 'Units returned / units ordered by the customer (returns neither rejected nor deleted; their orders matched by email or phone), above greaterThan (a fraction: 0.4 is 40 %). A customer without orders has no rate.',
})
export class ReturnRateConditionInput {
  @Field(() => Float)
  greaterThan!: number;
}

@InputType('SegmentConditionInput', { description: 'Exactly one of event, profile, consent, returns or returnRate.' })
export class SegmentConditionInput {
  @Field(() => EventConditionInput, { nullable: true })
  event?: EventConditionInput;

  @Field(() => ProfileConditionInput, { nullable: true })
  profile?: ProfileConditionInput;

  @Field(() => ConsentConditionInput, { nullable: true })
  consent?: ConsentConditionInput;

  @Field(() => ReturnHistoryConditionInput, { nullable: true })
  returns?: ReturnHistoryConditionInput;

  @Field(() => ReturnRateConditionInput, { nullable: true })
  returnRate?: ReturnRateConditionInput;
}

@InputType('SegmentDefinitionInput', { description: 'A customer matches every `all` condition and, when `any` is given, at least one `any` condition.' })
export class SegmentDefinitionInput {
  @Field(() => [SegmentConditionInput], { nullable: true })
  all?: SegmentConditionInput[];

  @Field(() => [SegmentConditionInput], { nullable: true })
  any?: SegmentConditionInput[];
}

@InputType('CreateSegmentInput')
export class CreateSegmentInput {
  @Field(() => String)
  name!: string;

  @Field(() => SegmentDefinitionInput)
  definition!: SegmentDefinitionInput;
}
