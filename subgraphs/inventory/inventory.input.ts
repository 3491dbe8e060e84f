import { Field, ID, InputType, Int } from 'type-graphql';
import { DateScalar } from '../../platform/graphql/scalars.js';
import { InventoryKind } from './inventory.type.js';

@InputType()
export class MoneyInput {
  @Field(() => String, { description: 'Decimal string, e.g. "12.34"' })
  amount!: string;

  @Field(() => String, { description: 'ISO 4217 code, e.g. "USD"' })
  currency!: string;
}

@InputType()
export class CreateLocationInput {
  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  externalId?: string | null;
}

@InputType()
export class UpsertProductInput {
  @Field(() => String)
  sku!: string;

  @Field(() => String)
  title!: string;

  @Field(() => String, { nullable: true })
  variantTitle?: string | null;

  @Field(() => String, { nullable: true })
  upc?: string | null;

  @Field(() => String, { nullable: true })
  imageUrl?: string | null;
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

@InputType()
export class AdjustInventoryInput {
  @Field(() => ID, { nullable: true, description: 'The product (or give its sku)' })
  productId?: string | null;

  @Field(() => String, { nullable: true })
  sku?: string | null;

  @Field(() => ID)
  locationId!: string;

  @Field(() => InventoryKind, { nullable: true, description: 'Defaults to PRODUCT' })
  kind?: InventoryKind | null;

  @Field(() => Int, { description: 'Units to add (positive) or remove (negative)' })
  delta!: number;

  @Field(() => String, { nullable: true })
  lotNumber?: string | null;

  @Field(() => DateScalar, { nullable: true })
  expirationDate?: string | null;
}

@InputType()
export class ReceiveUndeclaredInput {
  @Field(() => ID)
  locationId!: string;

  @Field(() => String)
  sku!: string;

  @Field(() => Int)
  quantity!: number;
}
