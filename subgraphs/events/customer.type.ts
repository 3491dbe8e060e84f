import { Directive, Field, ID, ObjectType } from 'type-graphql';
import { GraphQLJSON } from 'graphql-scalars';

@Directive('@key(fields: "id")')
@ObjectType('Customer')
export class CustomerType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  storeId!: string;

  @Field(() => String, { nullable: true })
  email!: string | null;

  @Field(() => String, { nullable: true })
  phoneNumber!: string | null;

  @Field(() => String, { nullable: true })
  firstName!: string | null;

  @Field(() => String, { nullable: true })
  lastName!: string | null;

  @Field(() => GraphQLJSON, { nullable: true })
  customFields!: Record<string, unknown> | null;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}
