import { Field, InputType } from 'type-graphql';
import { ShipmentStatusEnum } from './return.type.js';
import type { ShipmentStatus } from './return.status.js';

@InputType()
export class ReturnFilterInput {
  // A string rather than the enum so an unknown value gets the same 400 (with its pointer) on REST and GraphQL.
  @Field(() => String, { nullable: true, description: 'One return status' }) status?: string;
  @Field(() => String, { nullable: true, description: 'return or warranty' }) type?: string;
  @Field(() => String, { nullable: true, description: 'Inclusive, RFC 3339 or YYYY-MM-DD' }) updatedAtMin?: string;
  @Field(() => String, { nullable: true, description: 'Exclusive' }) updatedAtMax?: string;
  @Field(() => String, { nullable: true, description: 'Inclusive' }) createdAtMin?: string;
  @Field(() => String, { nullable: true, description: 'Exclusive' }) createdAtMax?: string;
  @Field(() => String, { nullable: true, description: "The order's name on its platform, e.g. #1001" }) providerOrderName?: string;
}

@InputType()
export class ShipmentEventInput {
  @Field(() => ShipmentStatusEnum) status!: ShipmentStatus;
  @Field(() => String, { nullable: true }) carrier?: string;
  @Field(() => String, { nullable: true }) trackingNumber?: string;
  @Field(() => String, { nullable: true }) trackingUrl?: string;
  @Field(() => String, { nullable: true }) estimatedDeliveryDate?: string;
  @Field(() => String, { nullable: true }) deliveredAt?: string;
}

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
