import { Field, Float, ID, ObjectType } from 'type-graphql';
import { ConnectionType } from '../../platform/graphql/connection.js';
import { LocationType } from './location.type.js';
import { ProductType } from './product.type.js';

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
