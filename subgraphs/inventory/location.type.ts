import { Directive, Field, ID, ObjectType } from 'type-graphql';

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
