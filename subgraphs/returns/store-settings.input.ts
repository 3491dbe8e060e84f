import { Field, InputType } from 'type-graphql';

@InputType()
export class AddressInput {
  @Field(() => String, { nullable: true }) line1?: string;
  @Field(() => String, { nullable: true }) line2?: string;
  @Field(() => String, { nullable: true }) city?: string;
  @Field(() => String, { nullable: true }) state?: string;
  @Field(() => String, { nullable: true }) postalCode?: string;
  @Field(() => String, { nullable: true }) country?: string;
}

@InputType()
export class StoreSettingsInput {
  @Field(() => String, { nullable: true, description: 'Inventory location receiving returns (and their restock)' }) returnLocationId?: string;
  @Field(() => Boolean, { nullable: true, description: 'New returns start in pre_shipment until approveReturn' }) requireReturnApproval?: boolean;
  @Field(() => AddressInput, { nullable: true }) returnAddress?: AddressInput;
  @Field(() => String, { nullable: true }) returnPhoneNumber?: string;
}
