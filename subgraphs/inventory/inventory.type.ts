import { Directive, Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { ConnectionType } from '../../platform/graphql/connection.js';
import { DateScalar } from '../../platform/graphql/scalars.js';
import { MoneyType } from '../../platform/graphql/money.type.js';

import { InboundShipmentStatus, InventoryKind } from './inventory.values.js';

export { InboundShipmentStatus, InventoryKind };

registerEnumType(InboundShipmentStatus, { name: 'InboundShipmentStatus' });
registerEnumType(InventoryKind, { name: 'InventoryKind', description: 'Classification of stock (not a lifecycle).' });

@Directive('@key(fields: "id")')
@ObjectType('Location')
export class LocationType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String, { nullable: true })
  externalId!: string | null;

  @Field(() => Date)
  createdAt!: Date;
}

// Return items reference products by store and sku, which they know, as well as by id.
@Directive('@key(fields: "id")')
@Directive('@key(fields: "storeId sku")')
@ObjectType('Product')
export class ProductType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String)
  sku!: string;

  @Field(() => String)
  title!: string;

  @Field(() => String, { nullable: true })
  variantTitle!: string | null;

  @Field(() => String, { nullable: true })
  upc!: string | null;

  @Field(() => String, { nullable: true })
  imageUrl!: string | null;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}

@ObjectType('InventoryLevel', { description: 'Units of an item on hand at one location.' })
export class InventoryLevelType {
  @Field(() => ID)
  locationId!: string;

  @Field(() => String)
  locationName!: string;

  @Field(() => Int)
  quantity!: number;
}

// `{storeId, sku, kind}` is the item of that sku and kind without a lot number.
@Directive('@key(fields: "id")')
@Directive('@key(fields: "storeId sku kind")')
@ObjectType('InventoryItem')
export class InventoryItemType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => ID, { nullable: true, description: 'The product, when the sku is one of the store (null for UNKNOWN stock).' })
  productId!: string | null;

  @Field(() => String)
  sku!: string;

  @Field(() => String, { description: 'Product title, then " - " and the variant title when there is one.' })
  name!: string;

  // A String (not the InventoryKind enum) because it is part of an entity key other subgraphs declare.
  @Field(() => String, { description: 'PRODUCT, RETURN, UNDECLARED or UNKNOWN' })
  kind!: string;

  @Field(() => String, { nullable: true })
  lotNumber!: string | null;

  @Field(() => DateScalar, { nullable: true })
  expirationDate!: string | null;

  @Field(() => Int, { description: 'Units on hand in total; in a list filtered by location, the units at that location.' })
  quantity!: number;

  @Field(() => [InventoryLevelType], { description: 'Locations holding units of this item.' })
  locations!: InventoryLevelType[];

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}

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

export const InventoryItemConnection = ConnectionType(InventoryItemType, 'InventoryItem');
export const InboundShipmentConnection = ConnectionType(InboundShipmentType, 'InboundShipment');

@ObjectType('ProductLevel', { description: "A product's units at a location, every kind and lot together (REST: an inventory level)." })
export class ProductLevelType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => ProductType)
  product!: ProductType;

  @Field(() => LocationType)
  location!: LocationType;

  // Float, not Int: a level sums several items of up to 2^31 - 1 units each.
  @Field(() => Float, { description: 'Whole units on hand (every kind and lot).' })
  quantity!: number;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}

export const ProductLevelConnection = ConnectionType(ProductLevelType, 'ProductLevel');
