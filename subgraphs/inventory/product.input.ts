import { Field, InputType } from 'type-graphql';

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
