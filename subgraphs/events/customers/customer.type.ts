import { Directive, Field, Float, ID, ObjectType } from 'type-graphql';
import { JSONScalar as GraphQLJSON } from '../../../platform/graphql/scalars.js';
import { ConnectionType } from '../../../platform/graphql/connection.js';

@ObjectType('CustomerLocation')
class CustomerLocationType {
  @Field(() => String, { nullable: true }) street1?: string;
  @Field(() => String, { nullable: true }) street2?: string;
  @Field(() => String, { nullable: true }) city?: string;
  @Field(() => String, { nullable: true }) state?: string;
  @Field(() => String, { nullable: true }) stateCode?: string;
  @Field(() => String, { nullable: true }) postalCode?: string;
  @Field(() => String, { nullable: true }) country?: string;
  @Field(() => String, { nullable: true }) countryCode?: string;
  @Field(() => String, { nullable: true }) ianaTimeZoneName?: string;
  @Field(() => Float, { nullable: true }) latitude?: number;
  @Field(() => Float, { nullable: true }) longitude?: number;
}

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

  @Field(() => CustomerLocationType, { nullable: true })
  location!: Record<string, unknown> | null;

  @Field(() => GraphQLJSON, { nullable: true })
  customFields!: Record<string, unknown> | null;

  @Field(() => Date)
  createdAt!: Date;

  @Field(() => Date)
  updatedAt!: Date;
}

export const CustomerConnection = ConnectionType(CustomerType, 'Customer');
