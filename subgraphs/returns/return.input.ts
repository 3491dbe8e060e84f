import { Field, InputType } from 'type-graphql';
import type { ShipmentStatus } from './return.rules.js';
import { ShipmentStatusEnum } from './return.type.js';

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
  @Field(() => String, { nullable: true, description: "The order customer's email, any case" }) email?: string;
  @Field(() => String, { nullable: true, description: 'Returns carrying this tag (case-sensitive)' }) tag?: string;
  @Field(() => Boolean, { nullable: true, description: 'true: imported returns only; false: returns made here only' }) imported?: boolean;
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
