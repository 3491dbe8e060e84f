import { Field, ID, InputType } from 'type-graphql';
import { ReturnTimeFieldEnum } from './compat.type.js';
import { ReturnStatusEnum } from './return.type.js';

@InputType({ description: 'Exactly one way to find a return in a store; an order (by name or numeric id) finds its newest return' })
export class ReturnLookupInput {
  @Field(() => ID, { nullable: true }) id?: string;
  @Field(() => ID, { nullable: true }) numericId?: string;
  @Field(() => String, { nullable: true }) orderName?: string;
  @Field(() => ID, { nullable: true }) orderNumericId?: string;
}

@InputType({ description: 'Open with no carrier event ever recorded and created before `createdBefore` (is: true), or not (is: false)' })
export class AwaitingShipmentInput {
  @Field(() => String, { description: 'RFC 3339 date-time' }) createdBefore!: string;
  @Field(() => Boolean) is!: boolean;
}

@InputType({ description: 'A condition on the state of a return; every part given must hold' })
export class ReturnConditionInput {
  @Field(() => [ReturnStatusEnum], { nullable: true, description: 'The status is one of these' }) statuses?: string[];
  @Field(() => AwaitingShipmentInput, { nullable: true }) awaitingShipment?: AwaitingShipmentInput;
}

@InputType({ description: 'Returns whose creation (or last update) time is in [from, until)' })
export class ReturnWindowInput {
  @Field(() => ReturnTimeFieldEnum) field!: string;
  @Field(() => String, { description: 'Inclusive, RFC 3339' }) from!: string;
  @Field(() => String, { description: 'Exclusive, RFC 3339' }) until!: string;
  @Field(() => ReturnConditionInput, { nullable: true }) condition?: ReturnConditionInput;
}
