import { Directive, Field, ID, Int, ObjectType } from 'type-graphql';

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
}

@Directive('@key(fields: "id")')
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
}

@Directive('@key(fields: "id")')
@ObjectType('InventoryItem')
export class InventoryItemType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String)
  sku!: string;

  @Field(() => String)
  name!: string;

  @Field(() => String)
  kind!: string;

  @Field(() => Int)
  quantity!: number;
}

@Directive('@key(fields: "id")')
@ObjectType('InboundShipment')
export class InboundShipmentType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String)
  status!: string;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}
