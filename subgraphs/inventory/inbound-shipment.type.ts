import { Directive, Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { ConnectionType } from '../../platform/graphql/connection.js';
import { MoneyType } from '../../platform/graphql/money.type.js';
import { DateScalar } from '../../platform/graphql/scalars.js';
import { InboundShipmentStatus } from './inbound-shipment.rules.js';
import { LocationType } from './location.type.js';
import { ProductType } from './product.type.js';

registerEnumType(InboundShipmentStatus, { name: 'InboundShipmentStatus' });

@ObjectType('InboundShipmentItem')
export class InboundShipmentItemType {
  @Field(() => ID)
  id!: string;

  @Field(() => ProductType)
  product!: ProductType;

  @Field(() => Int, { description: 'Units expected' })
  quantity!: number;

  @Field(() => Int)
  receivedQuantity!: number;

  @Field(() => Int)
  damagedQuantity!: number;

  @Field(() => Int)
  missingQuantity!: number;
}

@Directive('@key(fields: "id")')
@ObjectType('InboundShipment')
export class InboundShipmentType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String, { nullable: true, description: "The sender's shipment reference" })
  shipmentId!: string | null;

  @Field(() => InboundShipmentStatus)
  status!: InboundShipmentStatus;

  @Field(() => LocationType)
  location!: LocationType;

  @Field(() => String, { nullable: true })
  carrier!: string | null;

  @Field(() => String, { nullable: true })
  trackingNumber!: string | null;

  @Field(() => String, { nullable: true })
  trackingUrl!: string | null;

  @Field(() => DateScalar, { nullable: true })
  estimatedArrivalDate!: string | null;

  @Field(() => DateScalar, { nullable: true })
  actualArrivalDate!: string | null;

  @Field(() => String, { nullable: true })
  freightType!: string | null;

  @Field(() => String, { nullable: true })
  paymentTerms!: string | null;

  @Field(() => MoneyType, { nullable: true })
  freightCost!: MoneyType | null;

  @Field(() => MoneyType, { nullable: true })
  dutyCost!: MoneyType | null;

  @Field(() => [InboundShipmentItemType])
  items!: InboundShipmentItemType[];

  @Field(() => Int, { description: 'Number of lines' })
  skuCount!: number;

  @Field(() => Int, { description: 'Units expected over all lines' })
  itemCount!: number;

  @Field(() => Int, { description: 'Good units received over all lines' })
  receivedCount!: number;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}

export const InboundShipmentConnection = ConnectionType(InboundShipmentType, 'InboundShipment');
