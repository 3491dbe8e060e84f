import { Directive, Field, ObjectType } from 'type-graphql';

/** `{amount, currency}`: the amount is a decimal string, never a binary float. Shared by every subgraph. */
@Directive('@shareable')
@ObjectType('Money')
export class MoneyType {
  @Field(() => String, { description: 'Decimal amount, e.g. "12.34"' })
  amount!: string;

  @Field(() => String, { description: 'ISO 4217 currency code' })
  currency!: string;
}
