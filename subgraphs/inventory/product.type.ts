import { Directive, Field, ID, ObjectType } from 'type-graphql';

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
