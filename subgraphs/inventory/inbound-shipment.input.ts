import { Field, ID, InputType, Int } from 'type-graphql';
import { DateScalar } from '../../platform/graphql/scalars.js';

@InputType()
export class MoneyInput {
  @Field(() => String, { description: 'Decimal string, e.g. "12.34"' })
  amount!: string;

  @Field(() => String, { description: 'ISO 4217 code, e.g. "USD"' })
  currency!: string;
}

@InputType()
export class InboundShipmentLineInput {
  @Field(() => ID)
  productId!: string;

  @Field(() => Int, { description: 'Units expected (at least 1)' })
  quantity!: number;
}

@InputType()
export class CreateInboundShipmentInput {
  @Field(() => ID)
  locationId!: string;

  @Field(() => String, { nullable: true })
  shipmentId?: string | null;

  @Field(() => String, { nullable: true })
  carrier?: string | null;

  @Field(() => String, { nullable: true })
  trackingNumber?: string | null;

  @Field(() => String, { nullable: true })
  trackingUrl?: string | null;

  @Field(() => DateScalar, { nullable: true })
  estimatedArrivalDate?: string | null;

  @Field(() => String, { nullable: true })
  freightType?: string | null;

  @Field(() => String, { nullable: true })
  paymentTerms?: string | null;

  @Field(() => MoneyInput, { nullable: true })
  freightCost?: MoneyInput | null;

  @Field(() => MoneyInput, { nullable: true })
  dutyCost?: MoneyInput | null;

  @Field(() => [InboundShipmentLineInput])
  items!: InboundShipmentLineInput[];
}

@InputType()
export class ReceiveInboundShipmentItemInput {
  @Field(() => ID, { description: 'The shipment line (InboundShipmentItem.id)' })
  itemId!: string;

  @Field(() => Int, { nullable: true, description: 'Good units, added to stock' })
  receivedQuantity?: number | null;

  @Field(() => Int, { nullable: true, description: 'Damaged units, counted but never stocked' })
  damagedQuantity?: number | null;

  @Field(() => Int, { nullable: true, description: 'Missing units, counted but never stocked' })
  missingQuantity?: number | null;
}
