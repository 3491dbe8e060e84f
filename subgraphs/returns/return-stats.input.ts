import { Field, InputType, registerEnumType } from 'type-graphql';
import { SegmentDefinitionInput } from '../events/public.js';
import { ReturnFilterInput } from './return.input.js';

export enum ReturnStatsBasis {
  CREATED = 'CREATED',
  ORDER_DATE = 'ORDER_DATE',
}
registerEnumType(ReturnStatsBasis, {
  name: 'ReturnStatsBasis',
  description:
    "What places a return in a bucket. CREATED: the return's creation time, against units ordered in the same span. ORDER_DATE: its order's creation time: of the orders placed in each span, the returns and units that came back (whenever they did) and the return rate, as return reports compute it.",
});

export enum ReturnStatsComparison {
  PREVIOUS_PERIOD = 'PREVIOUS_PERIOD',
}
registerEnumType(ReturnStatsComparison, {
  name: 'ReturnStatsComparison',
  description: 'PREVIOUS_PERIOD: the same measures for the period just before the window, as long on the calendar of its time zone (as many months, as many days, else as long).',
});

@InputType('ReturnStatsFilterInput', { description: "The returns list's filter, and the returns of a segment's customers." })
export class ReturnStatsFilterInput extends ReturnFilterInput {
  @Field(() => SegmentDefinitionInput, {
    nullable: true,
    description: "Only returns of the segment's customers (their orders' email or phone), against the units those customers ordered. Needs customers_read besides returns_read.",
  })
  segment?: SegmentDefinitionInput;
}
