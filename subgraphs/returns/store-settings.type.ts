import { Field, ID, ObjectType } from 'type-graphql';
import { AddressType } from './order.type.js';

@ObjectType('StoreSettings')
export class StoreSettingsType {
  @Field(() => ID) storeId!: string;
  @Field(() => ID, { nullable: true, description: 'Destination of returns; restock goes there' }) returnLocationId!: string | null;
  @Field(() => Boolean) requireReturnApproval!: boolean;
  @Field(() => AddressType, { nullable: true }) returnAddress!: AddressType | null;
  @Field(() => String, { nullable: true }) returnPhoneNumber!: string | null;
}
