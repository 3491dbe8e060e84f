import { Field, ID, InputType } from 'type-graphql';
import { ReturnStatusEnum, ReturnTimeFieldEnum, ShipmentStatusEnum } from './return.type.js';
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
